//! Loading data files (TOML) as raw specs, then checking them.
//!
//! Every problem is reported with the file, the line and the field, and all
//! problems found in one file are reported together, so that a user fixes a
//! file in one pass.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The largest data file Spotter reads (scenarios, rosters, rule data,
/// layouts, camera and parameter files are a few kilobytes; a file this big
/// is a mistake, and parsing it would take minutes and gigabytes).
pub const MAX_DATA_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// The largest photo or detection record Spotter reads (a 48 MP JPEG is
/// about 25 MB).
pub const MAX_PHOTO_BYTES: u64 = 256 * 1024 * 1024;

/// The largest game log Spotter reads (an evening's game is a few
/// megabytes).
pub const MAX_LOG_BYTES: u64 = 512 * 1024 * 1024;

/// Reads the whole file at `path` if it holds at most `max_bytes`; a
/// longer one (or one that grows while read, or never ends) is an error
/// that says so, read no further than `max_bytes + 1`.
pub fn read_capped(path: &Path, max_bytes: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let too_large = || {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "is larger than {max_bytes} bytes, the most Spotter reads from such a file (is this the right file?)"
            ),
        )
    };
    let file = std::fs::File::open(path)?;
    if file.metadata()?.len() > max_bytes {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large());
    }
    Ok(bytes)
}

/// Adds a problem for each field that is not a finite number above zero.
pub fn check_positive(out: &mut Vec<(&'static str, String)>, fields: &[(&'static str, f64)]) {
    for &(name, v) in fields {
        if !(v.is_finite() && v > 0.0) {
            out.push((name, format!("{v} must be a positive number")));
        }
    }
}

/// Adds a problem for each field that is not a finite number of zero or more.
pub fn check_non_negative(out: &mut Vec<(&'static str, String)>, fields: &[(&'static str, f64)]) {
    for &(name, v) in fields {
        if !(v.is_finite() && v >= 0.0) {
            out.push((name, format!("{v} must be zero or more")));
        }
    }
}

/// [`read_capped`] as UTF-8 text.
pub fn read_text_capped(path: &Path, max_bytes: u64) -> std::io::Result<String> {
    String::from_utf8(read_capped(path, max_bytes)?).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("is not UTF-8 text ({e})"),
        )
    })
}

/// One problem in a data file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecProblem {
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// Dotted field path, e.g. `marker[2].size_in`.
    pub field: String,
    /// What is wrong and what to do about it.
    pub message: String,
}

/// All problems found in one data file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct SpecError {
    pub path: PathBuf,
    pub problems: Vec<SpecProblem>,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.problems.len();
        write!(
            f,
            "{} has {} problem{}:",
            self.path.display(),
            n,
            if n == 1 { "" } else { "s" }
        )?;
        for p in &self.problems {
            match p.line {
                Some(line) => write!(
                    f,
                    "\n  {}:{}: field `{}`: {}",
                    self.path.display(),
                    line,
                    p.field,
                    p.message
                )?,
                None => write!(
                    f,
                    "\n  {}: field `{}`: {}",
                    self.path.display(),
                    p.field,
                    p.message
                )?,
            }
        }
        Ok(())
    }
}

/// The text of a data file, kept so that byte spans can be turned into lines.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: PathBuf,
    pub text: String,
}

impl SourceFile {
    /// Reads a file; a missing or unreadable file is a [`SpecError`] too.
    pub fn read(path: &Path) -> Result<Self, SpecError> {
        let refuse = |message: String| SpecError {
            path: path.to_owned(),
            problems: vec![SpecProblem {
                line: None,
                field: String::new(),
                message,
            }],
        };
        if let Ok(meta) = std::fs::metadata(path) {
            if meta.is_dir() {
                return Err(refuse("is a folder, not a data file".into()));
            }
            if meta.len() > MAX_DATA_FILE_BYTES {
                return Err(refuse(format!(
                    "is {} bytes; data files are at most {MAX_DATA_FILE_BYTES} bytes (is this the right file?)",
                    meta.len()
                )));
            }
        }
        match read_text_capped(path, MAX_DATA_FILE_BYTES) {
            Ok(text) => Ok(Self {
                path: path.to_owned(),
                text,
            }),
            Err(err) => Err(SpecError {
                path: path.to_owned(),
                problems: vec![SpecProblem {
                    line: None,
                    field: String::new(),
                    message: format!("cannot read the file: {err}"),
                }],
            }),
        }
    }

    /// A source held in memory (tests, embedded defaults).
    pub fn from_text(path: impl Into<PathBuf>, text: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            text: text.into(),
        }
    }

    /// 1-based line of a byte offset.
    pub fn line_of(&self, offset: usize) -> usize {
        let end = offset.min(self.text.len());
        self.text.as_bytes()[..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    }

    /// Parses the raw spec with serde; a syntax or type error becomes a
    /// [`SpecError`] naming the line and the field.
    pub fn parse_toml<T: serde::de::DeserializeOwned>(&self) -> Result<T, SpecError> {
        toml::from_str(&self.text).map_err(|err| {
            let line = err.span().map(|s| self.line_of(s.start));
            let field = field_from_toml_message(err.message())
                .or_else(|| err.span().and_then(|s| self.key_at(s.start)))
                .unwrap_or_default();
            self.error(vec![SpecProblem {
                line,
                field,
                message: err.message().trim().to_owned(),
            }])
        })
    }

    /// The key set on the line holding byte `offset` (or, inside a value
    /// spread over several lines, the nearest key above it); a table header
    /// gives the table's name.
    pub fn key_at(&self, offset: usize) -> Option<String> {
        let end = offset.min(self.text.len());
        let start = self.text[..end].rfind('\n').map_or(0, |i| i + 1);
        let head = &self.text[..start];
        let this = self.text[start..].lines().next().unwrap_or_default();
        std::iter::once(this)
            .chain(head.lines().rev())
            .find_map(key_of_line)
    }

    /// 1-based line of the first line that sets `key` (the last part of a
    /// dotted field path), for problems found on parsed values.
    pub fn line_of_key(&self, field: &str) -> Option<usize> {
        let key = field
            .rsplit('.')
            .next()
            .unwrap_or(field)
            .split('[')
            .next()
            .unwrap_or_default();
        self.text
            .lines()
            .position(|l| key_of_line(l).is_some_and(|k| k == key))
            .map(|i| i + 1)
    }

    /// A problem at a span of this file.
    pub fn problem(
        &self,
        span: Option<Range<usize>>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> SpecProblem {
        SpecProblem {
            line: span.map(|s| self.line_of(s.start)),
            field: field.into(),
            message: message.into(),
        }
    }

    /// `value` if it has no problems, else an error naming each problem's
    /// field and the first line that sets it (parameter files, where a
    /// check runs on the parsed value, not on a span).
    pub fn checked<T>(&self, value: T, problems: Vec<(&str, String)>) -> Result<T, SpecError> {
        if problems.is_empty() {
            return Ok(value);
        }
        let problems = problems
            .into_iter()
            .map(|(field, message)| SpecProblem {
                line: self
                    .text
                    .lines()
                    .position(|l| l.trim_start().starts_with(field))
                    .map(|i| i + 1),
                field: field.to_owned(),
                message,
            })
            .collect();
        Err(self.error(problems))
    }

    /// Wraps problems of this file into one error.
    pub fn error(&self, problems: Vec<SpecProblem>) -> SpecError {
        SpecError {
            path: self.path.clone(),
            problems,
        }
    }
}

/// Walks a parsed file for numbers no serde type rules out: every float
/// must be finite, and a length (a field named `*_in` or `*_cm`, or a list
/// of them) zero or more. Pushes (dotted field path, message).
pub fn number_problems(value: &toml::Value, path: &str, out: &mut Vec<(String, String)>) {
    let is_length = |p: &str| {
        let key = p.rsplit('.').next().unwrap_or(p);
        let key = key.split('[').next().unwrap_or(key);
        key.ends_with("_in") || key.ends_with("_cm")
    };
    match value {
        toml::Value::Float(f) if !f.is_finite() => {
            out.push((
                path.to_owned(),
                format!("{f} is not a number Spotter can use; give a finite number"),
            ));
        }
        toml::Value::Float(f) if *f < 0.0 && is_length(path) => {
            out.push((path.to_owned(), format!("{f}: a length cannot be negative")));
        }
        toml::Value::Integer(i) if *i < 0 && is_length(path) => {
            out.push((path.to_owned(), format!("{i}: a length cannot be negative")));
        }
        toml::Value::Table(t) => {
            for (k, child) in t {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                number_problems(child, &p, out);
            }
        }
        toml::Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                number_problems(child, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// The key a TOML line sets (`key = ...`) or the table it opens (`[a.b]`).
fn key_of_line(line: &str) -> Option<String> {
    let t = line.trim_start();
    if t.starts_with('#') {
        return None;
    }
    if let Some(header) = t.strip_prefix('[') {
        let name = header.trim_start_matches('[');
        let name = name.split(']').next().unwrap_or_default().trim();
        return (!name.is_empty()).then(|| name.to_owned());
    }
    let (key, _) = t.split_once('=')?;
    let key = key.trim().trim_matches('"').trim_matches('\'');
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-.".contains(c);
    (!key.is_empty() && key.chars().all(plain)).then(|| key.to_owned())
}

/// toml names unknown, missing and duplicated fields inside its message;
/// pull the name out so that the error shows it in the `field` slot too.
/// Other messages quote the value (`` invalid type: integer `300` ``), not
/// the field: those are named from where the error is.
fn field_from_toml_message(message: &str) -> Option<String> {
    let names_a_field = ["unknown field", "missing field", "duplicate"]
        .iter()
        .any(|m| message.contains(m));
    if !names_a_field {
        return None;
    }
    for quote in ['`', '\''] {
        if let Some(start) = message.find(quote)
            && let Some(len) = message[start + 1..].find(quote)
        {
            return Some(message[start + 1..start + 1 + len].to_owned());
        }
    }
    None
}

/// Command-line numbers, checked where clap parses them (`value_parser =
/// spotter::spec::flag::seconds` and so on): a flag that cannot hold a bad
/// value needs no check further in.
pub mod flag {
    /// Longest run a timed flag may ask for, seconds (a day).
    pub const MAX_SECONDS: f64 = 86_400.0;
    /// Fastest playback rate, frames per second.
    pub const MAX_FPS: f64 = 240.0;
    /// Slowest playback rate (a frame every ten seconds). The capture
    /// thread's wait between frames ends at once when the app closes.
    pub const MIN_FPS: f64 = 0.1;
    /// Longest distance a flag may give, inches (or cm).
    pub const MAX_LENGTH: f64 = 10_000.0;
    /// Largest measurement uncertainty, inches.
    pub const MAX_SIGMA_IN: f64 = 100.0;
    /// Largest modifier an odds flag may give: far beyond any rule's, small
    /// enough that sums of several never wrap.
    pub const MAX_MODIFIER: i64 = 1_000;
    /// Most figures or soldiers an odds flag may count.
    pub const MAX_FIGURES: i64 = 500;
    /// Most cards a deck flag may count.
    pub const MAX_CARDS: usize = 1_000;

    fn number(text: &str) -> Result<f64, String> {
        let v: f64 = text
            .trim()
            .parse()
            .map_err(|_| format!("`{text}` is not a number"))?;
        if v.is_finite() {
            Ok(v)
        } else {
            Err(format!("`{text}` is not a finite number"))
        }
    }

    fn within(text: &str, lo: f64, hi: f64, what: &str) -> Result<f64, String> {
        let v = number(text)?;
        if (lo..=hi).contains(&v) {
            Ok(v)
        } else {
            Err(format!("{v}: {what} must be from {lo} to {hi}"))
        }
    }

    /// A positive duration, seconds, at most [`MAX_SECONDS`].
    pub fn seconds(text: &str) -> Result<f64, String> {
        let v = within(text, 0.0, MAX_SECONDS, "seconds")?;
        if v > 0.0 {
            Ok(v)
        } else {
            Err("seconds must be more than 0".into())
        }
    }

    /// A duration of zero or more seconds, at most [`MAX_SECONDS`].
    pub fn seconds_or_zero(text: &str) -> Result<f64, String> {
        within(text, 0.0, MAX_SECONDS, "seconds")
    }

    /// A frame rate from [`MIN_FPS`] to [`MAX_FPS`].
    pub fn fps(text: &str) -> Result<f64, String> {
        within(text, MIN_FPS, MAX_FPS, "frames per second")
    }

    /// A distance of zero or more, at most [`MAX_LENGTH`].
    pub fn length(text: &str) -> Result<f64, String> {
        within(text, 0.0, MAX_LENGTH, "a distance")
    }

    /// A number of cards, at most [`MAX_CARDS`].
    pub fn cards(text: &str) -> Result<usize, String> {
        let n: usize = text
            .trim()
            .parse()
            .map_err(|_| format!("`{text}` is not a whole number of cards"))?;
        if n <= MAX_CARDS {
            Ok(n)
        } else {
            Err(format!("{n}: a deck holds at most {MAX_CARDS} cards"))
        }
    }

    /// An uncertainty of zero or more inches, at most [`MAX_SIGMA_IN`].
    pub fn sigma_in(text: &str) -> Result<f64, String> {
        within(text, 0.0, MAX_SIGMA_IN, "an uncertainty (inches)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code, reason = "fields are only parsed")]
    struct Raw {
        a: f64,
        b: String,
    }

    #[test]
    fn syntax_errors_name_line_and_field() {
        let src = SourceFile::from_text("x.toml", "a = 1.0\nb = \"ok\"\nc = 3\n");
        let err = src.parse_toml::<Raw>().unwrap_err();
        assert_eq!(err.problems[0].line, Some(3));
        assert_eq!(err.problems[0].field, "c");
        assert!(err.to_string().contains("x.toml:3"), "{err}");
    }

    #[test]
    fn type_errors_name_the_line() {
        let src = SourceFile::from_text("x.toml", "a = \"one\"\nb = \"ok\"\n");
        let err = src.parse_toml::<Raw>().unwrap_err();
        assert_eq!(err.problems[0].line, Some(1));
    }

    #[test]
    fn type_errors_name_the_field_not_the_value() {
        let src = SourceFile::from_text("x.toml", "a = 1.0\nb = 300\n");
        let err = src.parse_toml::<Raw>().unwrap_err();
        assert_eq!(err.problems[0].field, "b", "{err}");
        assert!(!err.to_string().contains("field `300`"), "{err}");
        let src = SourceFile::from_text("x.toml", "a = [\n  1.0,\n]\nb = \"ok\"\n");
        let err = src.parse_toml::<Raw>().unwrap_err();
        assert_eq!(err.problems[0].field, "a", "{err}");
    }

    #[test]
    fn flags_refuse_what_they_cannot_hold() {
        for bad in ["nan", "inf", "-inf", "1e20", "0", "-1", "x"] {
            assert!(flag::seconds(bad).is_err(), "{bad}");
            assert!(flag::fps(bad).is_err(), "{bad}");
        }
        assert_eq!(flag::seconds("2.5"), Ok(2.5));
        assert!(flag::sigma_in("-0.5").is_err());
        assert!(flag::sigma_in("NaN").is_err());
        assert!(flag::length("-3").is_err());
        assert_eq!(flag::length("0"), Ok(0.0));
    }

    #[test]
    fn a_capped_read_reads_no_more_than_its_cap() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ten.txt");
        std::fs::write(&path, "0123456789").unwrap();
        assert_eq!(read_text_capped(&path, 10).unwrap(), "0123456789");
        let err = read_capped(&path, 9).unwrap_err().to_string();
        assert!(err.contains("larger than 9 bytes"), "{err}");
        // A file that never ends is cut at the cap, not read for ever.
        #[cfg(unix)]
        assert!(read_capped(Path::new("/dev/zero"), 1000).is_err());
    }

    #[test]
    fn a_huge_file_is_refused_before_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.toml");
        let f = std::fs::File::create(&path).unwrap();
        f.set_len(MAX_DATA_FILE_BYTES + 1).unwrap();
        let err = SourceFile::read(&path).unwrap_err();
        assert!(err.to_string().contains("at most"), "{err}");
    }
}
