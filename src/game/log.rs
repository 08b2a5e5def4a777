//! The game log: JSON Lines, one record per line, appended and fsynced as
//! each event happens, so that a crash loses at most the command being
//! written (which is then dropped whole on resume).
//!
//! Records: `start` (the initial state), then for each command `command`,
//! its `event`s and `end`; `undo` takes back an earlier command.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::command::Command;
use super::event::Event;
use super::state::GameState;

/// Schema name written in the start record.
pub const LOG_SCHEMA: &str = "spotter.gamelog/1";

/// One line of the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum LogRecord {
    Start {
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
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Bad {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

/// An open log file being appended to.
#[derive(Debug)]
pub struct LogWriter {
    path: PathBuf,
    file: File,
}

impl LogWriter {
    /// Creates a new log (refuses to overwrite an existing game).
    pub fn create(path: &Path) -> Result<Self, LogError> {
        let file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(path)
            .map_err(|source| LogError::Io {
                path: path.to_owned(),
                source,
            })?;
        Ok(Self {
            path: path.to_owned(),
            file,
        })
    }

    /// Opens an existing log to append; `valid_len` bytes are kept (a torn
    /// last line is cut off).
    pub fn append_to(path: &Path, valid_len: u64) -> Result<Self, LogError> {
        let io = |source| LogError::Io {
            path: path.to_owned(),
            source,
        };
        let file = OpenOptions::new().append(true).open(path).map_err(io)?;
        file.set_len(valid_len).map_err(io)?;
        Ok(Self {
            path: path.to_owned(),
            file,
        })
    }

    /// Path of the log.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record and forces it to disk.
    pub fn append(&mut self, record: &LogRecord) -> Result<(), LogError> {
        let io = |source| LogError::Io {
            path: self.path.clone(),
            source,
        };
        let mut line = serde_json::to_string(record).map_err(|e| LogError::Bad {
            path: self.path.clone(),
            line: 0,
            message: e.to_string(),
        })?;
        line.push('\n');
        self.file.write_all(line.as_bytes()).map_err(io)?;
        self.file.flush().map_err(io)?;
        self.file.sync_data().map_err(io)
    }
}

/// A log as read back.
#[derive(Debug, Clone)]
pub struct ReadLog {
    pub records: Vec<LogRecord>,
    /// Bytes of complete, parsed lines (the rest was a torn write).
    pub valid_len: u64,
    /// A torn final line was found and ignored.
    pub torn_tail: bool,
}

/// Reads every record. A last line that does not parse (a crash in the
/// middle of a write) is ignored; a bad line elsewhere is an error.
pub fn read_log(path: &Path) -> Result<ReadLog, LogError> {
    let file = File::open(path).map_err(|source| LogError::Io {
        path: path.to_owned(),
        source,
    })?;
    let mut reader = BufReader::new(file);
    let mut records = Vec::new();
    let mut valid_len = 0_u64;
    let mut torn_tail = false;
    let mut buf = String::new();
    let mut line_no = 0;
    loop {
        buf.clear();
        let n = reader.read_line(&mut buf).map_err(|source| LogError::Io {
            path: path.to_owned(),
            source,
        })?;
        if n == 0 {
            break;
        }
        line_no += 1;
        if torn_tail {
            return Err(LogError::Bad {
                path: path.to_owned(),
                line: line_no - 1,
                message: "a line that does not parse is followed by more lines".into(),
            });
        }
        let complete = buf.ends_with('\n');
        match serde_json::from_str::<LogRecord>(buf.trim_end()) {
            Ok(r) if complete => {
                records.push(r);
                valid_len += n as u64;
            }
            _ => torn_tail = true,
        }
    }
    Ok(ReadLog {
        records,
        valid_len,
        torn_tail,
    })
}
