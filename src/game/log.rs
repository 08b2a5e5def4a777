//! The game log: JSON Lines, one record per line, appended and fsynced as
//! each command happens, so that a crash loses at most the command being
//! written (which is then dropped whole on resume).
//!
//! Records: `start` (the schema and the initial state), then for each
//! command `command`, its `event`s and `end`; `undo` takes back an earlier
//! command.
//!
//! # Recovery
//! A log is read up to its last consistent command: a line that does not
//! parse (a torn write, garbage, a blank line), a second start record, a
//! command logged twice, an event outside its command or naming a figure
//! the game does not have, an undo of a command that does not stand. The
//! game resumes from the last `end` or `undo` before that line, the reason
//! and the line are reported, and the damaged file is kept beside the
//! repaired one (`<log>.damaged-N`); the log itself is replaced whole by a
//! renamed copy, never cut or overwritten in place. A complete last record
//! whose newline is missing loses nothing.
//!
//! A lock file beside the log (`<log>.lock`, the owner's pid) keeps a
//! second program from writing the same game; a lock whose owner has died
//! is taken over.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Command, Event, GameState};

/// Schema name written in the start record. Version 4: Stand To!'s
/// commands, events and figure state are its own (`"command": "stand-to"`,
/// `"event": "stand-to"`, the figure's `rules`), as the other rule sets'
/// are; older logs are rewritten as they are read (`log_upgrade`). Version 3: each rule set's
/// state and events are its own types (`"event": "volley-fire"` ...); the
/// string `status` event and the string status of figures, units and sides
/// are gone. Version 2: the rule sets' actions are typed commands
/// (`volley-fire`, `soldiers-in-time`, `little-colonial`, `observe`,
/// `roll-experience`) and a measurement names its unit; version 1 wrote
/// `rule-action` with its name and parameters.
pub const LOG_SCHEMA: &str = "spotter.gamelog/4";

/// A lock file holds one process id; a larger one is not a lock Spotter
/// wrote, and is taken over as stale.
const LOCK_MAX_BYTES: u64 = 64;
/// Version 3 logs load: their Stand To! commands, events and figure fields
/// are rewritten into version 4's as they are read.
pub const LOG_SCHEMA_V3: &str = "spotter.gamelog/3";
/// Version 2 logs load when they hold no `status` event (Stand To! games);
/// one that does is refused at that line, naming the event.
pub const LOG_SCHEMA_V2: &str = "spotter.gamelog/2";
/// The first schema, which old logs without a schema field are.
pub const LOG_SCHEMA_V1: &str = "spotter.gamelog/1";
/// Every schema this build reads (a version-1 command is read through
/// `Command::Untyped` and typed when the game resumes).
pub const KNOWN_SCHEMAS: [&str; 4] = [LOG_SCHEMA_V1, LOG_SCHEMA_V2, LOG_SCHEMA_V3, LOG_SCHEMA];
/// Event fields that hold a figure id (JSON keys of [`Event`]).
const FIGURE_KEYS: [&str; 7] = [
    "figure",
    "shooter",
    "target",
    "attackers",
    "defenders",
    "giver",
    "to",
];

fn schema_v1() -> String {
    LOG_SCHEMA_V1.to_owned()
}

/// One line of the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum LogRecord {
    Start {
        #[serde(default = "schema_v1")]
        schema: String,
        state: Box<GameState>,
    },
    Command {
        n: u64,
        command: Command,
    },
    Event {
        n: u64,
        event: Event,
    },
    End {
        n: u64,
    },
    Undo {
        n: u64,
    },
}

/// Errors reading or writing a log.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// (The I/O error is in the message, not a `source`, so that a chain
    /// of contexts prints it once.)
    #[error("{path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Bad {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error(
        "{path}: schema `{schema}` is not one this Spotter reads ({}); open it with the Spotter that wrote it",
        KNOWN_SCHEMAS.join(", ")
    )]
    UnknownSchema { path: PathBuf, schema: String },
    #[error(
        "{path} is in use by another Spotter (pid {pid}, lock file {lock}); close that one first, or delete the lock file if that program is gone"
    )]
    Locked {
        path: PathBuf,
        pid: u32,
        lock: PathBuf,
    },
    #[error(
        "not logged: {what} holds a number that is not finite (NaN or infinity), which the log cannot keep"
    )]
    NotFinite { what: String },
    #[error(
        "{path} is {bytes} bytes; game logs are at most {} bytes (is this the right file?)",
        crate::spec::MAX_LOG_BYTES
    )]
    TooLarge { path: PathBuf, bytes: u64 },
}

/// `<log><suffix>`, beside the log.
fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// The lock file of a log.
pub fn lock_path(log: &Path) -> PathBuf {
    beside(log, ".lock")
}

/// Is a process with this pid running? (Linux: `/proc`; elsewhere every
/// lock is taken as live.)
fn pid_alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        Path::new("/proc").join(pid.to_string()).exists()
    } else {
        true
    }
}

/// The lock on a log, released when dropped.
#[derive(Debug)]
struct Lock {
    path: PathBuf,
}

impl Lock {
    /// Takes the lock of `log`: refused while another live process holds it;
    /// a lock left by a dead process (or by this one) is taken over.
    ///
    /// The lock file appears whole: the pid is written to a file of this
    /// process's own first and hard-linked into place, so another program
    /// never sees an empty lock and takes it for a stale one. A stale lock
    /// is first renamed aside (only one taker can win that rename) and
    /// looked at again there, so a fresh lock that replaced it in between
    /// is put back, not deleted. Where the file system has no hard links,
    /// the lock is created and then written, as before.
    fn take(log: &Path) -> Result<Self, LogError> {
        let path = lock_path(log);
        let me = std::process::id();
        let io = |source| LogError::Io {
            path: path.clone(),
            error: source,
        };
        let mine = beside(&path, &format!(".{me}.new"));
        std::fs::write(&mine, format!("{me}\n")).map_err(io)?;
        File::open(&mine).and_then(|f| f.sync_all()).map_err(io)?;
        let taken = Self::take_with(log, &path, &mine, me);
        let _ = std::fs::remove_file(&mine);
        taken
    }

    /// [`Lock::take`] once this process's pid is written to `mine`.
    fn take_with(log: &Path, path: &Path, mine: &Path, me: u32) -> Result<Self, LogError> {
        let io = |source| LogError::Io {
            path: path.to_owned(),
            error: source,
        };
        let locked = |pid| LogError::Locked {
            path: log.to_owned(),
            pid,
            lock: path.to_owned(),
        };
        for _ in 0..3 {
            match place_lock(mine, path) {
                Ok(()) => {
                    return Ok(Self {
                        path: path.to_owned(),
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(io(e)),
            }
            match lock_owner(path) {
                Some(pid) if pid != me && pid_alive(pid) => return Err(locked(pid)),
                // Stale (or ours, or unreadable): take it over.
                _ => {
                    let aside = beside(path, &format!(".{me}.stale"));
                    match std::fs::rename(path, &aside) {
                        Ok(()) => {}
                        // Another taker moved it first: try again.
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                        Err(e) => return Err(io(e)),
                    }
                    let moved = lock_owner(&aside);
                    if let Some(pid) = moved.filter(|&p| p != me && pid_alive(p)) {
                        // A live program's fresh lock: put it back.
                        let _ = std::fs::hard_link(&aside, path);
                        let _ = std::fs::remove_file(&aside);
                        return Err(locked(pid));
                    }
                    let _ = std::fs::remove_file(&aside);
                }
            }
        }
        Err(locked(0))
    }
}

/// The pid a lock file names, if it names one.
fn lock_owner(path: &Path) -> Option<u32> {
    crate::spec::read_text_capped(path, LOCK_MAX_BYTES)
        .ok()
        .and_then(|t| t.trim().parse::<u32>().ok())
}

/// Puts the written lock `mine` in place at `path`, refused with
/// `AlreadyExists` when a lock is there. A hard link makes the file appear
/// with its content; without hard links it is created, then written.
fn place_lock(mine: &Path, path: &Path) -> std::io::Result<()> {
    match std::fs::hard_link(mine, path) {
        Err(e)
            if e.kind() != std::io::ErrorKind::AlreadyExists
                && e.kind() != std::io::ErrorKind::NotFound =>
        {
            let text = std::fs::read(mine)?;
            let mut f = OpenOptions::new().write(true).create_new(true).open(path)?;
            f.write_all(&text)?;
            f.sync_all()
        }
        other => other,
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let ours = lock_owner(&self.path) == Some(std::process::id());
        if ours {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// A record as one line, refused when it would not read back as itself
/// (a NaN or infinity is written by serde_json as `null`).
pub fn to_line(record: &LogRecord) -> Result<String, LogError> {
    let what = || match record {
        LogRecord::Start { .. } => "the start state".to_owned(),
        LogRecord::Command { command, .. } => format!("the command {command:?}"),
        LogRecord::Event { event, .. } => format!("the event {event:?}"),
        LogRecord::End { n } | LogRecord::Undo { n } => format!("record {n}"),
    };
    let line = serde_json::to_string(record).map_err(|_| LogError::NotFinite { what: what() })?;
    match serde_json::from_str::<LogRecord>(&line) {
        Ok(back) if back == *record => Ok(line),
        _ => Err(LogError::NotFinite { what: what() }),
    }
}

/// An open log file being appended to.
#[derive(Debug)]
pub struct LogWriter {
    path: PathBuf,
    file: File,
    _lock: Lock,
}

impl LogWriter {
    /// Creates a new log (refuses to overwrite an existing game).
    pub fn create(path: &Path) -> Result<Self, LogError> {
        let lock = Lock::take(path)?;
        let file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(path)
            .map_err(|source| LogError::Io {
                path: path.to_owned(),
                error: source,
            })?;
        Ok(Self {
            path: path.to_owned(),
            file,
            _lock: lock,
        })
    }

    /// Opens an existing log to append to (after [`recover`]).
    fn open_append(path: &Path, lock: Lock, add_newline: bool) -> Result<Self, LogError> {
        let io = |source| LogError::Io {
            path: path.to_owned(),
            error: source,
        };
        let mut file = OpenOptions::new().append(true).open(path).map_err(io)?;
        if add_newline {
            file.write_all(b"\n").map_err(io)?;
            file.sync_data().map_err(io)?;
        }
        Ok(Self {
            path: path.to_owned(),
            file,
            _lock: lock,
        })
    }

    /// Replaces the log with exactly `records` (a new file renamed over the
    /// old one), and goes on appending to it. The lock is kept.
    pub fn rewrite(&mut self, records: &[LogRecord]) -> Result<(), LogError> {
        let lines = records.iter().map(to_line).collect::<Result<Vec<_>, _>>()?;
        let mut text = lines.join("\n");
        text.push('\n');
        replace_file(&self.path, text.as_bytes())?;
        self.file = OpenOptions::new()
            .append(true)
            .open(&self.path)
            .map_err(|source| LogError::Io {
                path: self.path.clone(),
                error: source,
            })?;
        Ok(())
    }

    /// Swaps the open file for another (a test puts `/dev/full` here to
    /// see a full disk).
    #[doc(hidden)]
    pub fn replace_file_for_test(&mut self, file: File) {
        self.file = file;
    }

    /// Path of the log.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record and forces it to disk.
    pub fn append(&mut self, record: &LogRecord) -> Result<(), LogError> {
        self.append_all(std::slice::from_ref(record))
    }

    /// Appends records (one command and its events) with one write and one
    /// fsync. Every record is checked first: if one cannot be logged,
    /// nothing is written.
    pub fn append_all(&mut self, records: &[LogRecord]) -> Result<(), LogError> {
        let mut text = String::new();
        for r in records {
            text.push_str(&to_line(r)?);
            text.push('\n');
        }
        let io = |source| LogError::Io {
            path: self.path.clone(),
            error: source,
        };
        self.file.write_all(text.as_bytes()).map_err(io)?;
        self.file.flush().map_err(io)?;
        self.file.sync_data().map_err(io)
    }
}

/// Writes `bytes` to a new file beside `path`, forces it to disk and renames
/// it over `path`: the old content stays whole until the new one is.
fn replace_file(path: &Path, bytes: &[u8]) -> Result<(), LogError> {
    let tmp = beside(path, ".writing");
    let io = |source| LogError::Io {
        path: tmp.clone(),
        error: source,
    };
    let mut f = File::create(&tmp).map_err(io)?;
    f.write_all(bytes).map_err(io)?;
    f.sync_all().map_err(io)?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(io)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && let Ok(d) = File::open(dir)
    {
        let _ = d.sync_all();
    }
    Ok(())
}

/// One record as read, with where it is.
#[derive(Debug, Clone)]
pub struct LineRecord {
    /// 1-based line.
    pub line: usize,
    /// Byte offset just past the line (its newline included).
    pub end: u64,
    pub record: LogRecord,
}

/// A log as read back, up to its first line that does not parse.
#[derive(Debug, Clone)]
pub struct ReadLog {
    pub records: Vec<LineRecord>,
    /// Length of the file, bytes.
    pub file_len: u64,
    /// The first line that does not parse, and why; nothing after it is read.
    pub bad_line: Option<(usize, String)>,
    /// The last record is complete but its newline is missing.
    pub missing_newline: bool,
}

/// Reads every record up to the first line that does not parse. Bytes, not
/// text, so that a torn multi-byte character is a bad line like any other.
pub fn read_log(path: &Path) -> Result<ReadLog, LogError> {
    let io = |source| LogError::Io {
        path: path.to_owned(),
        error: source,
    };
    let file = File::open(path).map_err(io)?;
    let file_len = file.metadata().map_err(io)?.len();
    if file_len > crate::spec::MAX_LOG_BYTES {
        return Err(LogError::TooLarge {
            path: path.to_owned(),
            bytes: file_len,
        });
    }
    let mut reader = BufReader::new(file);
    let mut out = ReadLog {
        records: Vec::new(),
        file_len,
        bad_line: None,
        missing_newline: false,
    };
    let mut buf = Vec::new();
    let mut end = 0_u64;
    // Records of a log older than this schema are rewritten as they are
    // read (decided by its start record; one without a schema is the first).
    let mut old_schema = false;
    for line in 1.. {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf).map_err(io)?;
        if n == 0 {
            break;
        }
        end += n as u64;
        let complete = buf.ends_with(b"\n");
        let body = buf.strip_suffix(b"\n").unwrap_or(&buf);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        let parsed = if body.iter().all(u8::is_ascii_whitespace) {
            Err("a blank line".to_owned())
        } else {
            parse_record(body, line, &mut old_schema).map_err(|e| {
                if complete {
                    format!("does not read as a log record ({e})")
                } else {
                    format!("is cut short (the program stopped while writing it: {e})")
                }
            })
        };
        match parsed {
            Ok(record) => {
                out.missing_newline = !complete;
                out.records.push(LineRecord { line, end, record });
            }
            Err(reason) => {
                out.bad_line = Some((line, reason));
                break;
            }
        }
    }
    Ok(out)
}

/// One line's record; the start record (line 1) says whether the log is of
/// an older schema, whose records are rewritten into today's form first.
fn parse_record(
    body: &[u8],
    line: usize,
    old_schema: &mut bool,
) -> Result<LogRecord, serde_json::Error> {
    let mut value: serde_json::Value = serde_json::from_slice(body)?;
    if line == 1 && value.get("kind").and_then(|k| k.as_str()) == Some("start") {
        let schema = value.get("schema").and_then(|s| s.as_str());
        *old_schema = schema.is_none_or(|s| s != LOG_SCHEMA && KNOWN_SCHEMAS.contains(&s));
    }
    if *old_schema {
        super::log_upgrade::upgrade_record(&mut value);
    }
    serde_json::from_value(value)
}

/// One command as recovered from a log.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedCommand {
    pub n: u64,
    pub command: Command,
    pub events: Vec<Event>,
    pub undone: bool,
}

/// What a resume had to repair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repair {
    /// The first line that was not kept.
    pub line: usize,
    pub reason: String,
    /// The damaged file, kept whole.
    pub damaged_copy: PathBuf,
    /// Lines dropped from the log.
    pub lines_dropped: usize,
}

impl std::fmt::Display for Repair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the log was damaged at line {}: {}; resumed from the last complete command before it ({} line{} dropped); the damaged log is kept as {}",
            self.line,
            self.reason,
            self.lines_dropped,
            if self.lines_dropped == 1 { "" } else { "s" },
            self.damaged_copy.display()
        )
    }
}

/// A log read back to its last consistent command, repaired on disk when
/// it had to be, and open for appending.
#[derive(Debug)]
pub struct Recovered {
    pub start: GameState,
    pub commands: Vec<LoggedCommand>,
    pub repair: Option<Repair>,
    pub writer: LogWriter,
}

/// The figure ids an event names that the game does not have.
fn unknown_figures(event: &Event, state: &GameState) -> Vec<u64> {
    let Ok(serde_json::Value::Object(map)) = serde_json::to_value(event) else {
        return Vec::new();
    };
    let mut ids: Vec<u64> = Vec::new();
    for (k, v) in &map {
        if FIGURE_KEYS.contains(&k.as_str()) {
            match v {
                serde_json::Value::Number(n) => ids.extend(n.as_u64()),
                serde_json::Value::Array(a) => ids.extend(a.iter().filter_map(|x| x.as_u64())),
                _ => {}
            }
        }
        if let serde_json::Value::Object(o) = v
            && o.get("of").and_then(|x| x.as_str()) == Some("figure")
        {
            ids.extend(o.get("id").and_then(serde_json::Value::as_u64));
        }
    }
    ids.retain(|&id| !state.figures.iter().any(|f| u64::from(f.id.0) == id));
    ids
}

/// Walks the records after the start one and keeps the consistent prefix.
/// Returns the commands, the byte length kept, and the first inconsistency.
fn consistent_prefix(
    start: &GameState,
    start_end: u64,
    records: &[LineRecord],
) -> (Vec<LoggedCommand>, u64, Option<(usize, String)>) {
    let mut history: Vec<LoggedCommand> = Vec::new();
    let mut open: Option<(usize, LoggedCommand)> = None;
    let mut kept = start_end;
    let mut last_n = 0_u64;
    for r in records {
        let bad = |why: String| Some((r.line, why));
        let problem = match &r.record {
            LogRecord::Start { .. } => bad("a second start record".into()),
            LogRecord::Command { n, command } => {
                if let Some((_, o)) = &open {
                    bad(format!(
                        "command {n} begins before command {} has ended",
                        o.n
                    ))
                } else if *n <= last_n {
                    bad(format!("command {n} is logged twice (or out of order)"))
                } else {
                    last_n = *n;
                    let c = LoggedCommand {
                        n: *n,
                        command: command.clone(),
                        events: Vec::new(),
                        undone: false,
                    };
                    open = Some((r.line, c));
                    None
                }
            }
            LogRecord::Event { n, event } => match open.as_mut() {
                Some((_, o)) if o.n == *n => {
                    let unknown = unknown_figures(event, start);
                    if unknown.is_empty() {
                        o.events.push(event.clone());
                        None
                    } else {
                        bad(format!(
                            "an event of command {n} names figure {unknown:?}, which the game does not have"
                        ))
                    }
                }
                _ => bad(format!("an event of command {n} outside that command")),
            },
            LogRecord::End { n } => match open.take() {
                Some((_, o)) if o.n == *n => {
                    history.push(o);
                    kept = r.end;
                    None
                }
                _ => bad(format!("the end of command {n}, which is not open")),
            },
            LogRecord::Undo { n } => match history.iter_mut().find(|p| p.n == *n && !p.undone) {
                Some(p) if open.is_none() => {
                    p.undone = true;
                    kept = r.end;
                    None
                }
                _ => bad(format!(
                    "an undo of command {n}, which was not played or is already undone"
                )),
            },
        };
        if problem.is_some() {
            return (history, kept, problem);
        }
    }
    let unfinished = open.map(|(line, o)| {
        (
            line,
            format!(
                "command {} has no end (the program stopped while writing it)",
                o.n
            ),
        )
    });
    (history, kept, unfinished)
}

/// A free `<log>.damaged-N` name.
fn damaged_name(path: &Path) -> PathBuf {
    (1..)
        .map(|i| beside(path, &format!(".damaged-{i}")))
        .find(|p| !p.exists())
        .unwrap_or_else(|| beside(path, ".damaged"))
}

/// Reads a log back to its last consistent command. When lines had to be
/// dropped, the damaged file is kept beside (`<log>.damaged-N`) and the log
/// is replaced by its consistent prefix. Refused: a log that is locked by
/// another program, has no readable start record, or has an unknown schema.
pub fn recover(path: &Path) -> Result<Recovered, LogError> {
    let lock = Lock::take(path)?;
    let read = read_log(path)?;
    let bad = |line: usize, message: String| LogError::Bad {
        path: path.to_owned(),
        line,
        message,
    };
    let Some(first) = read.records.first() else {
        let why = read
            .bad_line
            .map_or_else(|| "the log is empty".to_owned(), |(_, w)| w);
        return Err(bad(
            1,
            format!("no start record ({why}): the game cannot be rebuilt without it"),
        ));
    };
    let LogRecord::Start { schema, state } = &first.record else {
        return Err(bad(
            1,
            "the first record is not the start record: the game cannot be rebuilt without it"
                .into(),
        ));
    };
    if !KNOWN_SCHEMAS.contains(&schema.as_str()) {
        return Err(LogError::UnknownSchema {
            path: path.to_owned(),
            schema: schema.clone(),
        });
    }
    let (commands, kept, inconsistent) = consistent_prefix(state, first.end, &read.records[1..]);
    let damage = inconsistent.or(read.bad_line.clone());
    let repair = match damage {
        Some((line, reason)) if kept < read.file_len => {
            let bytes =
                crate::spec::read_capped(path, crate::spec::MAX_LOG_BYTES).map_err(|source| {
                    LogError::Io {
                        path: path.to_owned(),
                        error: source,
                    }
                })?;
            let keep_len = usize::try_from(kept)
                .unwrap_or(bytes.len())
                .min(bytes.len());
            let damaged_copy = damaged_name(path);
            std::fs::write(&damaged_copy, &bytes).map_err(|source| LogError::Io {
                path: damaged_copy.clone(),
                error: source,
            })?;
            let mut kept_bytes = bytes[..keep_len].to_vec();
            if !kept_bytes.ends_with(b"\n") {
                kept_bytes.push(b'\n');
            }
            replace_file(path, &kept_bytes)?;
            let lines_dropped = bytes[keep_len..]
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .count();
            Some(Repair {
                line,
                reason,
                damaged_copy,
                lines_dropped,
            })
        }
        _ => None,
    };
    let add_newline = repair.is_none() && read.missing_newline;
    let writer = LogWriter::open_append(path, lock, add_newline)?;
    Ok(Recovered {
        start: (**state).clone(),
        commands,
        repair,
        writer,
    })
}
