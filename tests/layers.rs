//! The layer order of `src/`, checked by reading the sources (as rerun's
//! `scripts/check_forbidden_dependencies.py` does): a module may use only
//! modules of its own layer or of the layers below it.
//!
//! Bottom to top: `spec` (shared parsing helpers), `capture`,
//! `calibration`, `vision`, `geometry`, `core`, `rules`, `game`, then `ui`
//! and `cli` (one layer: the front ends). A use is a `crate::x` path, in a
//! `use` or in code, including the names of a `use crate::{x, y}` group.
//! Comments and `#[cfg(test)]` items are not read: a unit test may build
//! its fixture with a higher layer (a rule overlay test loads a scenario).

use std::path::{Path, PathBuf};

/// The layers, bottom first; modules of one entry form one layer.
const LAYERS: &[&[&str]] = &[
    &["spec"],
    &["capture"],
    &["calibration"],
    &["vision"],
    &["geometry"],
    &["core"],
    &["rules"],
    &["game"],
    &["ui", "cli"],
];

fn rank(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The source without comments and without `#[cfg(test)]` items, line by
/// line (line numbers kept: removed lines become empty).
fn production_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut skipping = false;
    let mut depth = 0_i64;
    let mut opened = false;
    let mut in_block_comment = false;
    for line in text.lines() {
        let mut code = String::new();
        let mut rest = line;
        loop {
            if in_block_comment {
                match rest.find("*/") {
                    Some(i) => {
                        in_block_comment = false;
                        rest = &rest[i + 2..];
                    }
                    None => break,
                }
            } else {
                let line_comment = rest.find("//");
                let block = rest.find("/*");
                match (line_comment, block) {
                    (Some(l), Some(b)) if b < l => {
                        code.push_str(&rest[..b]);
                        in_block_comment = true;
                        rest = &rest[b + 2..];
                    }
                    (None, Some(b)) => {
                        code.push_str(&rest[..b]);
                        in_block_comment = true;
                        rest = &rest[b + 2..];
                    }
                    (Some(l), _) => {
                        code.push_str(&rest[..l]);
                        break;
                    }
                    (None, None) => {
                        code.push_str(rest);
                        break;
                    }
                }
            }
        }
        if !skipping && code.trim() == "#[cfg(test)]" {
            skipping = true;
            depth = 0;
            opened = false;
            out.push(String::new());
            continue;
        }
        if skipping {
            for c in code.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            let ended = (opened && depth <= 0) || (!opened && code.trim_end().ends_with(';'));
            if ended {
                skipping = false;
            }
            out.push(String::new());
            continue;
        }
        out.push(code);
    }
    out
}

/// The top modules a line of code uses through `crate::` paths.
fn used_modules(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        // `spotter_crate::x` or `$crate::` are not ours.
        let before = rest[..i].chars().last();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            // Top-level names of the group: split on commas outside braces.
            let mut depth = 0;
            let mut start = true;
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && (c.is_alphanumeric() || c == '_') => {
                        let name: String = group[k..]
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect();
                        found.push(name);
                        start = false;
                    }
                    _ => {}
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.push(name);
            }
        }
    }
    found
}

/// Every use of a higher layer in one file's text, as messages.
fn file_violations(shown_path: &str, module: &str, text: &str) -> Vec<String> {
    let Some(own) = rank(module) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, code) in production_lines(text).iter().enumerate() {
        for used in used_modules(code) {
            if rank(&used).is_some_and(|r| r > own) {
                out.push(format!(
                    "{shown_path}:{}: `{module}` uses the higher layer `{used}`: {}",
                    i + 1,
                    code.trim()
                ));
            }
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn no_layer_uses_a_higher_one() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut violations = Vec::new();
    let mut checked = 0;
    for path in &files {
        let rel = path.strip_prefix(&src).expect("under src");
        let first = rel.components().next().expect("a component");
        let module = first.as_os_str().to_string_lossy();
        let module = module.trim_end_matches(".rs");
        if rank(module).is_none() {
            continue; // lib.rs, main.rs: the crate root sees everything.
        }
        checked += 1;
        let text = std::fs::read_to_string(path).expect("read a source file");
        violations.extend(file_violations(
            &format!("src/{}", rel.display()),
            module,
            &text,
        ));
    }
    assert!(checked > 50, "only {checked} source files were read");
    assert!(
        violations.is_empty(),
        "{} back edge(s) in the layer order {LAYERS:?}:\n{}",
        violations.len(),
        violations.join("\n")
    );
}

#[test]
fn the_check_finds_a_back_edge() {
    let text = "//! Docs may name crate::game::Game.\n\
                use crate::geometry::Placement;\n\
                use crate::{core::FigureId, game::{Game, Played}};\n\
                fn f() { let _ = crate::ui::theme::RED; }\n\
                #[cfg(test)]\n\
                mod tests {\n    use crate::game::Scenario;\n}\n\
                #[cfg(test)]\n\
                use crate::cli::main;\n\
                fn g() { crate::rules::odds::mean(&[]); }\n";
    let found = file_violations("src/rules/x.rs", "rules", text);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found[0].starts_with("src/rules/x.rs:3: `rules` uses the higher layer `game`"));
    assert!(found[1].starts_with("src/rules/x.rs:4: `rules` uses the higher layer `ui`"));
    assert!(file_violations("src/game/x.rs", "game", text).len() == 1);
}
