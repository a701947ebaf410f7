//! The house's lines, held by CI: no function in `src/` is longer than [`MAX_FN_LINES`] lines, counted from the
//! line of its `fn` to the line of its closing brace (attributes and doc comments not counted). A longer one is
//! named with its file, line and length.
//!
//! The scanner is a brace matcher over the source with its comments, strings (raw ones too) and character
//! literals blanked out first, so a brace or a `fn` inside them counts for nothing; its own tests below hold the
//! cases that trip a naive one (`'{'` beside a lifetime `'a`, `r#"…}"#`, nested block comments).

use std::path::{Path, PathBuf};

/// The longest a function may be.
const MAX_FN_LINES: usize = 150;

/// One function: its name, the line of its `fn` (1-based) and its length in lines.
#[derive(Debug, PartialEq)]
struct FnSpan {
    name: String,
    line: usize,
    lines: usize,
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `src` with every comment, string, byte string, raw string and character literal replaced by spaces (line
/// breaks kept, so line numbers stay), lifetimes and labels left as they are.
fn blank_out(src: &str) -> String {
    let s: Vec<char> = src.chars().collect();
    let mut out: Vec<char> = s.clone();
    let blank = |out: &mut Vec<char>, from: usize, to: usize| {
        for c in out.iter_mut().take(to.min(s.len())).skip(from) {
            if *c != '\n' {
                *c = ' ';
            }
        }
    };
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        let next = s.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            let end = (i..s.len()).find(|&j| s[j] == '\n').unwrap_or(s.len());
            blank(&mut out, i, end);
            i = end;
        } else if c == '/' && next == Some('*') {
            // Block comments nest in Rust.
            let (mut depth, mut j) = (0usize, i);
            while j < s.len() {
                if s[j] == '/' && s.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if s[j] == '*' && s.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if c == '"' {
            let end = string_end(&s, i + 1);
            blank(&mut out, i, end);
            i = end;
        } else if c == '\'' {
            match char_literal_end(&s, i) {
                Some(end) => {
                    blank(&mut out, i, end);
                    i = end;
                }
                // A lifetime or a label: its name is an identifier like any other.
                None => i += 1,
            }
        } else if is_ident(c) && (i == 0 || !is_ident(s[i - 1])) {
            let start = i;
            while i < s.len() && is_ident(s[i]) {
                i += 1;
            }
            let word: String = s[start..i].iter().collect();
            if matches!(word.as_str(), "r" | "br" | "cr") {
                if let Some(end) = raw_string_end(&s, i) {
                    blank(&mut out, start, end);
                    i = end;
                }
            }
            // `b"…"`, `c"…"` and `b'…'` continue as a plain string or character at `i`.
        } else {
            i += 1;
        }
    }
    out.into_iter().collect()
}

/// The index past the closing quote of a string whose contents start at `i` (escapes skipped).
fn string_end(s: &[char], mut i: usize) -> usize {
    while i < s.len() {
        match s[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    s.len()
}

/// At `#…#"` after an `r` (`i` just past it): the index past the raw string's closing `"#…#`; `None` when no
/// raw string starts there (a raw identifier `r#type`).
fn raw_string_end(s: &[char], i: usize) -> Option<usize> {
    let hashes = s[i..].iter().take_while(|&&c| c == '#').count();
    if s.get(i + hashes) != Some(&'"') {
        return None;
    }
    let mut j = i + hashes + 1;
    while j < s.len() {
        if s[j] == '"' && (1..=hashes).all(|k| s.get(j + k) == Some(&'#')) {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(s.len())
}

/// At a `'` (index `i`): the index past a character literal starting there, or `None` for a lifetime or label
/// (`'a`, `'static`, `'outer:`), which has no closing quote right after one character.
fn char_literal_end(s: &[char], i: usize) -> Option<usize> {
    match s.get(i + 1)? {
        // An escape: `'\n'`, `'\''`, `'\u{1F600}'`.
        '\\' => {
            let close = (i + 3..s.len()).find(|&j| s[j] == '\'')?;
            Some(close + 1)
        }
        _ if s.get(i + 2) == Some(&'\'') => Some(i + 3),
        _ => None,
    }
}

/// Every function with a body in `src`, outermost and nested alike.
fn functions(src: &str) -> Vec<FnSpan> {
    let clean: Vec<char> = blank_out(src).chars().collect();
    let line_at = |i: usize| 1 + clean[..i].iter().filter(|&&c| c == '\n').count();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 2 <= clean.len() {
        let is_fn = clean[i] == 'f'
            && clean[i + 1] == 'n'
            && (i == 0 || !is_ident(clean[i - 1]))
            && clean.get(i + 2).is_none_or(|&c| !is_ident(c));
        if !is_fn {
            i += 1;
            continue;
        }
        let mut j = i + 2;
        while j < clean.len() && clean[j].is_whitespace() {
            j += 1;
        }
        let name_start = j;
        while j < clean.len() && is_ident(clean[j]) {
            j += 1;
        }
        // `fn(u8) -> u8`, a pointer type: no name, no body.
        if name_start == j {
            i += 2;
            continue;
        }
        let name: String = clean[name_start..j].iter().collect();
        // The body is the first `{` outside the signature's parentheses; a `;` first means there is none.
        let mut parens = 0i64;
        let mut body = None;
        while j < clean.len() {
            match clean[j] {
                '(' | '[' => parens += 1,
                ')' | ']' => parens -= 1,
                '{' if parens == 0 => {
                    body = Some(j);
                    break;
                }
                ';' if parens == 0 => break,
                _ => {}
            }
            j += 1;
        }
        if let Some(open) = body {
            let mut depth = 0usize;
            let mut close = None;
            for (k, &c) in clean.iter().enumerate().skip(open) {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            close = Some(k);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let close = close.unwrap_or(clean.len() - 1);
            let line = line_at(i);
            out.push(FnSpan {
                name,
                line,
                lines: line_at(close) - line + 1,
            });
        }
        i += 2;
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn no_function_in_src_is_longer_than_the_house_allows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files.sort();
    assert!(files.len() > 50, "src/ holds {} .rs files", files.len());
    let mut long = Vec::new();
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        for s in functions(&src) {
            if s.lines > MAX_FN_LINES {
                long.push(format!(
                    "{}:{}: fn {}: {} lines",
                    f.strip_prefix(root).unwrap_or(f).display(),
                    s.line,
                    s.name,
                    s.lines
                ));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FN_LINES} lines (split them into named steps):\n{}",
        long.join("\n")
    );
}

fn spans(src: &str) -> Vec<(String, usize, usize)> {
    functions(src)
        .into_iter()
        .map(|s| (s.name, s.line, s.lines))
        .collect()
}

#[test]
fn the_scanner_counts_from_fn_to_its_closing_brace() {
    let src = "/// doc\n#[inline]\npub(crate) fn a<T: Into<u8>>(x: T) -> u8\nwhere\n    T: Copy,\n{\n    x.into()\n}\nfn b() {}\n";
    assert_eq!(spans(src), [("a".into(), 3, 6), ("b".into(), 9, 1)]);
    // Nested functions count on their own and inside the outer one; declarations and pointer types are no
    // functions.
    let src = "trait T {\n    fn decl(&self);\n    fn def(&self) -> fn(u8) -> u8 {\n        fn inner() {\n        }\n        |x| x\n    }\n}\n";
    assert_eq!(spans(src), [("def".into(), 3, 5), ("inner".into(), 4, 2)]);
}

#[test]
fn the_scanner_skips_braces_in_strings_chars_and_comments() {
    let src = r####"fn a<'a>(s: &'a str) -> char {
    let _ = "}{ \" }";
    let _ = r#"} "fn x() {" }"#;
    let _ = br##"}"#}"##;
    let _ = b"}";
    let _ = b'}';
    let r#fn = '{';
    let _ = '\'';
    let _ = '\u{7d}';
    'outer: loop { break 'outer; }
    // fn commented() {
    /* fn a() { /* nested } */ } */
    '}'
}
fn b() {}
"####;
    assert_eq!(spans(src), [("a".into(), 1, 14), ("b".into(), 15, 1)]);
    // A lifetime followed by a char-looking tail (`'a,'`) is still a lifetime.
    let src = "fn c<'a,'b>(x: &'a u8, y: &'b u8) {\n    let _ = (x, y, '{');\n}\n";
    assert_eq!(spans(src), [("c".into(), 1, 3)]);
}
