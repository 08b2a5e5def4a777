//! "No function in `src/rules`, `src/game` or `src/vision/track` over 120
//! lines" (issue 12: files a newcomer can read), checked by reading the
//! sources. A function's length runs from the line of its `fn` to the line
//! of its body's closing brace; braces in strings, characters and comments
//! do not count. A function inside another counts toward both.

use std::path::{Path, PathBuf};

/// The longest a function may be, lines.
const MAX_LINES: usize = 120;

/// The folders the rule covers.
const FOLDERS: [&str; 3] = ["src/rules", "src/game", "src/vision/track"];

/// One function: its name, the line of its `fn` (1-based) and its length
/// in lines.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Function {
    name: String,
    line: usize,
    lines: usize,
}

/// Every function with a body in a Rust source text.
fn functions(text: &str) -> Vec<Function> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    // Functions whose body has not closed: (name, fn line, body depth);
    // the body depth is None until its `{` is seen.
    let mut open: Vec<(String, usize, Option<usize>)> = Vec::new();
    let (mut i, mut line, mut depth) = (0, 1, 0_usize);
    let mut last_ident = String::new();
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '\n' => line += 1,
            '/' if next == Some('/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            '/' if next == Some('*') => {
                let mut nest = 0;
                while i < chars.len() {
                    if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                        nest += 1;
                        i += 1;
                    } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                        nest -= 1;
                        i += 1;
                        if nest == 0 {
                            break;
                        }
                    } else if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
            '"' => i = skip_string(&chars, i, 0, &mut line),
            '\'' => {
                // A character literal ('x', '\n', '{'), or a lifetime.
                if next == Some('\\') {
                    i += 2;
                    while i < chars.len() && chars[i] != '\'' {
                        i += 1;
                    }
                } else if chars.get(i + 2) == Some(&'\'') {
                    i += 2;
                }
            }
            '{' => {
                depth += 1;
                if let Some(f) = open.last_mut().filter(|f| f.2.is_none()) {
                    f.2 = Some(depth);
                }
            }
            '}' => {
                if let Some(pos) = open.iter().rposition(|f| f.2 == Some(depth)) {
                    let (name, start, _) = open.remove(pos);
                    out.push(Function {
                        name,
                        line: start,
                        lines: line - start + 1,
                    });
                }
                depth = depth.saturating_sub(1);
            }
            // A declaration without a body (a trait's method).
            ';' if open.last().is_some_and(|f| f.2.is_none()) => {
                open.pop();
            }
            c if c.is_alphabetic() || c == '_' => {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let ident: String = chars[start..i].iter().collect();
                // Raw strings: r"..", r#".."#, br"..".
                if (ident == "r" || ident == "br") && matches!(chars.get(i), Some('"') | Some('#'))
                {
                    let mut hashes = 0;
                    while chars.get(i) == Some(&'#') {
                        hashes += 1;
                        i += 1;
                    }
                    if chars.get(i) == Some(&'"') {
                        i = skip_string(&chars, i, hashes, &mut line) + 1;
                    }
                    continue;
                }
                if last_ident == "fn" {
                    open.push((ident.clone(), line, None));
                }
                last_ident = ident;
                continue;
            }
            _ => {}
        }
        if !c.is_whitespace() {
            last_ident.clear();
        }
        i += 1;
    }
    out
}

/// The index of the closing quote of the string opening at `i` (raw with
/// `hashes` when above 0), counting its lines.
fn skip_string(chars: &[char], mut i: usize, hashes: usize, line: &mut usize) -> usize {
    i += 1;
    while i < chars.len() {
        match chars[i] {
            '\\' if hashes == 0 => i += 1,
            '\n' => *line += 1,
            '"' if (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) => return i + hashes,
            _ => {}
        }
        i += 1;
    }
    i
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
fn no_function_in_rules_game_or_tracking_is_over_120_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for folder in FOLDERS {
        rust_files(&root.join(folder), &mut files);
    }
    let mut long = Vec::new();
    let mut counted = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).expect("read a source file");
        for f in functions(&text) {
            counted += 1;
            if f.lines > MAX_LINES {
                let shown = path.strip_prefix(root).unwrap_or(path).display();
                long.push(format!(
                    "{shown}:{}: {} is {} lines",
                    f.line, f.name, f.lines
                ));
            }
        }
    }
    assert!(counted > 500, "only {counted} functions were read");
    assert!(
        long.is_empty(),
        "{} function(s) over {MAX_LINES} lines (split them into named steps):\n{}",
        long.len(),
        long.join("\n")
    );
}

#[test]
fn the_count_skips_braces_in_strings_characters_and_comments() {
    let text = "fn short() {\n    let s = \"}}{\";\n    let c = '}';\n    // }\n}\n\
                trait T {\n    fn declared(&self);\n}\n\
                fn outer<'a>(x: &'a str) -> &'a str {\n    fn inner() {\n        let r = r#\"}\"#;\n    }\n    /* } */\n    x\n}\n";
    let found = functions(text);
    let by_name = |n: &str| found.iter().find(|f| f.name == n).cloned();
    assert_eq!(
        by_name("short"),
        Some(Function {
            name: "short".into(),
            line: 1,
            lines: 5
        })
    );
    assert_eq!(by_name("declared"), None);
    assert_eq!(by_name("inner").map(|f| (f.line, f.lines)), Some((10, 3)));
    assert_eq!(by_name("outer").map(|f| (f.line, f.lines)), Some((9, 7)));
    // A long function is found as long.
    let long = format!("fn long() {{\n{}}}\n", "    let x = 1;\n".repeat(130));
    assert_eq!(functions(&long)[0].lines, 132);
}
