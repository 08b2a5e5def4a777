//! Loading data files (TOML) as raw specs, then checking them.
//!
//! Every problem is reported with the file, the line and the field, and all
//! problems found in one file are reported together, so that a user fixes a
//! file in one pass.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

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
        match std::fs::read_to_string(path) {
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
            let field = field_from_toml_message(err.message());
            self.error(vec![SpecProblem {
                line,
                field,
                message: err.message().trim().to_owned(),
            }])
        })
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

/// toml names unknown or missing fields inside its message; pull the name out
/// so that the error shows it in the `field` slot too.
fn field_from_toml_message(message: &str) -> String {
    for quote in ['`', '\''] {
        if let Some(start) = message.find(quote)
            && let Some(len) = message[start + 1..].find(quote)
        {
            return message[start + 1..start + 1 + len].to_owned();
        }
    }
    String::new()
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
}
