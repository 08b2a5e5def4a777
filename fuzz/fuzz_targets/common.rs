//! What every target checks: a file loads, or its error names where (a
//! line or a field) for each problem. A panic, a hang or an unbounded
//! allocation is a crash that libFuzzer reports.

#![allow(dead_code, reason = "each target uses a part")]

use spotter::spec::{SourceFile, SpecError};

/// The bytes as the text of a file called `name` (invalid UTF-8 replaced,
/// as a text editor would show it).
pub fn source(name: &str, data: &[u8]) -> SourceFile {
    SourceFile::from_text(name, String::from_utf8_lossy(data).into_owned())
}

/// Panics (a crash for libFuzzer) when a problem names neither a line nor
/// a field.
pub fn names_where(err: &SpecError) {
    assert!(!err.problems.is_empty(), "an error with no problem: {err}");
    for p in &err.problems {
        assert!(
            p.line.is_some() || !p.field.is_empty(),
            "a problem names neither line nor field: {err}"
        );
    }
}

/// Runs `parse` on the bytes as the file `name` and checks its error.
pub fn check<T>(name: &str, data: &[u8], parse: impl FnOnce(&SourceFile) -> Result<T, SpecError>) {
    if let Err(e) = parse(&source(name, data)) {
        names_where(&e);
    }
}
