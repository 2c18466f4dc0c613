//! Reading the files a lint run names: which files a folder holds, what can be read as text,
//! and the Unreal macros blanked so the C++ grammar sees plain C++ at the same lines and
//! columns.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Files larger than this are not read (a generated or binary file, not a component).
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// The extensions a folder is searched for.
pub const EXTENSIONS: [&str; 3] = ["h", "hpp", "cpp"];

/// One file's text, ready for the parser.
#[derive(Debug)]
pub struct SourceFile {
    /// As the user named it (or as found below a named folder).
    pub path: PathBuf,
    /// The text as read (after decoding), for showing lines.
    pub text: String,
    /// The text with Unreal macros blanked to spaces of the same length.
    pub blanked: String,
    /// Function names declared with an RPC specifier (`UFUNCTION(Server, …)`, `Client`,
    /// `NetMulticast`).
    pub rpcs: Vec<String>,
    /// A remark about how it was read (a fallback encoding), if any.
    pub remark: Option<String>,
}

/// Why a file named (or found) was not linted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReadProblem {
    #[error("cannot read: {0}")]
    Io(String),
    #[error("is {size} bytes; movescope lint reads files up to {limit} bytes")]
    TooLarge { size: u64, limit: u64 },
    #[error("looks binary (a NUL byte at offset {offset}), not C++ source")]
    Binary { offset: usize },
    #[error("no such file or folder")]
    Missing,
    #[error("the parser gave up: {0}")]
    Parse(String),
}

/// The files below `paths`: named files as they are, folders searched recursively for
/// [`EXTENSIONS`], in a stable order, each once. Paths that do not exist are returned as
/// problems.
pub fn collect(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<(PathBuf, ReadProblem)>) {
    let mut files = Vec::new();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    let mut seen_dirs = BTreeSet::new();
    for p in paths {
        let meta = match std::fs::metadata(p) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                problems.push((p.clone(), ReadProblem::Missing));
                continue;
            }
            Err(e) => {
                problems.push((p.clone(), ReadProblem::Io(e.to_string())));
                continue;
            }
        };
        if !meta.is_dir() {
            if seen.insert(canonical(p)) {
                files.push(p.clone());
            }
            continue;
        }
        // Iterative walk; a folder reached twice (a symlink loop) is read once.
        let mut stack = vec![p.clone()];
        while let Some(dir) = stack.pop() {
            if !seen_dirs.insert(canonical(&dir)) {
                continue;
            }
            let mut entries: Vec<PathBuf> = match std::fs::read_dir(&dir) {
                Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
                Err(e) => {
                    problems.push((dir.clone(), ReadProblem::Io(e.to_string())));
                    continue;
                }
            };
            entries.sort();
            let mut subdirs = Vec::new();
            for e in entries {
                if e.is_dir() {
                    subdirs.push(e);
                } else if has_source_extension(&e) && seen.insert(canonical(&e)) {
                    files.push(e);
                }
            }
            // Reverse so the stack pops them in name order.
            stack.extend(subdirs.into_iter().rev());
        }
    }
    (files, problems)
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

fn has_source_extension(p: &Path) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.iter().any(|x| x.eq_ignore_ascii_case(e)))
}

/// Reads one file as text: UTF-8 (a byte-order mark is kept as spaces), UTF-16 with a
/// byte-order mark, or else — text that is not UTF-8 but has no NUL byte — as Windows-1252's
/// Latin-1 part, said in the remark.
pub fn read(path: &Path) -> Result<SourceFile, ReadProblem> {
    let size = std::fs::metadata(path)
        .map_err(|e| ReadProblem::Io(e.to_string()))?
        .len();
    if size > MAX_FILE_BYTES {
        return Err(ReadProblem::TooLarge {
            size,
            limit: MAX_FILE_BYTES,
        });
    }
    let bytes = std::fs::read(path).map_err(|e| ReadProblem::Io(e.to_string()))?;
    let (text, remark) = decode(&bytes)?;
    Ok(SourceFile::new(path.to_path_buf(), text, remark))
}

impl SourceFile {
    /// A file from text already in memory (tests, the app's dropped files).
    pub fn new(path: PathBuf, text: String, remark: Option<String>) -> SourceFile {
        let (blanked, rpcs) = blank_macros(&text);
        SourceFile {
            path,
            text,
            blanked,
            rpcs,
            remark,
        }
    }

    /// The 1-based line `line` of the text, without its end of line.
    pub fn line(&self, line: usize) -> &str {
        self.text
            .lines()
            .nth(line.saturating_sub(1))
            .unwrap_or("")
            .trim_end_matches('\r')
    }

    /// The lines of the statement that starts on 1-based line `line`: that line, and the
    /// following ones while its parentheses are open (a call written over several lines), at
    /// most [`STATEMENT_LINES`]. Parentheses in comments and strings do not count.
    pub fn statement(&self, line: usize) -> Vec<&str> {
        let mut depth = 0i32;
        let mut in_block = false;
        let mut out = Vec::new();
        for text in self
            .text
            .lines()
            .skip(line.saturating_sub(1))
            .take(STATEMENT_LINES)
        {
            out.push(text.trim_end_matches('\r'));
            depth += paren_balance(text, &mut in_block);
            if depth <= 0 {
                break;
            }
        }
        out
    }
}

/// The most lines [`SourceFile::statement`] gives.
pub const STATEMENT_LINES: usize = 8;

/// Opened minus closed parentheses on one line of C++, outside comments, strings and
/// character literals (`in_block`: inside a `/* */` comment, carried between lines).
fn paren_balance(line: &str, in_block: &mut bool) -> i32 {
    let b = line.as_bytes();
    let (mut i, mut n, mut quote) = (0, 0i32, None::<u8>);
    while i < b.len() {
        let next = b.get(i + 1).copied();
        match (quote, b[i]) {
            _ if *in_block && b[i] == b'*' && next == Some(b'/') => {
                *in_block = false;
                i += 1;
            }
            _ if *in_block => {}
            (Some(_), b'\\') => i += 1,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, b'/') if next == Some(b'/') => break,
            (None, b'/') if next == Some(b'*') => {
                *in_block = true;
                i += 1;
            }
            (None, c @ (b'"' | b'\'')) => quote = Some(c),
            (None, b'(') => n += 1,
            (None, b')') => n -= 1,
            _ => {}
        }
        i += 1;
    }
    n
}

fn decode(bytes: &[u8]) -> Result<(String, Option<String>), ReadProblem> {
    if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        return utf16(rest, u16::from_le_bytes).map(|t| (t, Some("read as UTF-16LE".into())));
    }
    if let Some(rest) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        return utf16(rest, u16::from_be_bytes).map(|t| (t, Some("read as UTF-16BE".into())));
    }
    if let Some(offset) = bytes.iter().position(|b| *b == 0) {
        return Err(ReadProblem::Binary { offset });
    }
    match std::str::from_utf8(bytes) {
        Ok(t) => Ok((t.replacen('\u{FEFF}', " ", 1), None)),
        Err(e) => {
            let at = e.valid_up_to();
            let line = bytes[..at].iter().filter(|b| **b == b'\n').count() + 1;
            let text: String = bytes.iter().map(|b| char::from(*b)).collect();
            Ok((
                text,
                Some(format!(
                    "not UTF-8 (first invalid byte on line {line}); read as Latin-1"
                )),
            ))
        }
    }
}

fn utf16(bytes: &[u8], f: fn([u8; 2]) -> u16) -> Result<String, ReadProblem> {
    let units: Vec<u16> = bytes.chunks_exact(2).map(|c| f([c[0], c[1]])).collect();
    String::from_utf16(&units)
        .map_err(|_| ReadProblem::Io("invalid UTF-16 (an unpaired surrogate)".into()))
}

/// Unreal's reflection and declaration macros: the name and its balanced argument list are
/// blanked. `*_API` export macros are blanked wherever they stand.
const MACROS: [&str; 26] = [
    "UCLASS",
    "USTRUCT",
    "UENUM",
    "UINTERFACE",
    "UFUNCTION",
    "UPROPERTY",
    "UPARAM",
    "UMETA",
    "UDELEGATE",
    "GENERATED_BODY",
    "GENERATED_UCLASS_BODY",
    "GENERATED_USTRUCT_BODY",
    "GENERATED_UINTERFACE_BODY",
    "GENERATED_IINTERFACE_BODY",
    "UE_DEPRECATED",
    "UE_INLINE_GENERATED_CPP_BY_NAME",
    "DECLARE_LOG_CATEGORY_EXTERN",
    "DECLARE_LOG_CATEGORY_CLASS",
    "DEFINE_LOG_CATEGORY",
    "DEFINE_LOG_CATEGORY_STATIC",
    "DECLARE_STATS_GROUP",
    "DECLARE_CYCLE_STAT",
    "SCOPE_CYCLE_COUNTER",
    "QUICK_SCOPE_CYCLE_COUNTER",
    "TRACE_CPUPROFILER_EVENT_SCOPE",
    "CSV_SCOPED_TIMING_STAT",
];

/// Bare words blanked (no argument list).
const WORDS: [&str; 5] = [
    "FORCEINLINE",
    "FORCENOINLINE",
    "UE_NODISCARD",
    "PURE_VIRTUAL",
    "PRAGMA_DISABLE_DEPRECATION_WARNINGS",
];

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Blanks Unreal macros (see [`MACROS`]) to spaces of the same byte length, keeping line ends,
/// so every line and column the parser reports is the file's own. Returns the blanked text and
/// the functions declared with an RPC specifier. `DECLARE_*DELEGATE*` macros are blanked too.
pub fn blank_macros(text: &str) -> (String, Vec<String>) {
    let src = text.as_bytes();
    let mut out = src.to_vec();
    let mut rpcs = Vec::new();
    let mut i = 0;
    while i < src.len() {
        let b = src[i];
        // Skip comments and string literals: a macro name there is not a macro.
        if b == b'/' && src.get(i + 1) == Some(&b'/') {
            i = src[i..]
                .iter()
                .position(|c| *c == b'\n')
                .map_or(src.len(), |p| i + p);
            continue;
        }
        if b == b'/' && src.get(i + 1) == Some(&b'*') {
            i = find(src, i + 2, b"*/").map_or(src.len(), |p| p + 2);
            continue;
        }
        if b == b'"' || b == b'\'' {
            i = skip_literal(src, i);
            continue;
        }
        if !is_ident_byte(b) || (i > 0 && is_ident_byte(src[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        while i < src.len() && is_ident_byte(src[i]) {
            i += 1;
        }
        let word = &text[start..i];
        let with_args =
            MACROS.contains(&word) || (word.starts_with("DECLARE_") && word.contains("DELEGATE"));
        if with_args {
            let end = args_end(src, i).unwrap_or(i);
            if word == "UFUNCTION" {
                let spec = &text[i..end];
                if ["Server", "Client", "NetMulticast"]
                    .iter()
                    .any(|k| spec_has_word(spec, k))
                    && let Some(name) = next_function_name(text, end)
                {
                    rpcs.push(name);
                }
            }
            blank(&mut out, start, end);
            i = end;
        } else if WORDS.contains(&word) || (word.ends_with("_API") && word.len() > 4) {
            blank(&mut out, start, i);
        }
    }
    // Only ASCII bytes outside of line ends were replaced by spaces, so this stays UTF-8.
    let blanked = String::from_utf8(out).unwrap_or_else(|_| text.to_string());
    (blanked, rpcs)
}

fn find(src: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    if from >= src.len() {
        return None;
    }
    src[from..]
        .windows(pat.len())
        .position(|w| w == pat)
        .map(|p| from + p)
}

fn skip_literal(src: &[u8], i: usize) -> usize {
    let q = src[i];
    let mut j = i + 1;
    while j < src.len() {
        match src[j] {
            b'\\' => j += 2,
            b'\n' => return j,
            c if c == q => return j + 1,
            _ => j += 1,
        }
    }
    src.len()
}

/// The end (one past the `)`) of a balanced argument list starting at the first
/// non-blank byte at or after `i`, if there is one.
fn args_end(src: &[u8], mut i: usize) -> Option<usize> {
    while i < src.len() && (src[i] == b' ' || src[i] == b'\t') {
        i += 1;
    }
    if src.get(i) != Some(&b'(') {
        return None;
    }
    let mut depth = 0usize;
    while i < src.len() {
        match src[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'"' | b'\'' => {
                i = skip_literal(src, i);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn blank(out: &mut [u8], start: usize, end: usize) {
    for b in &mut out[start..end] {
        if *b != b'\n' && *b != b'\r' {
            *b = b' ';
        }
    }
}

/// Whether a UE macro's argument list (`(Server, Reliable, Category="A|Client")`) names the
/// specifier `word`: its arguments read as C++ tokens — only a top-level argument's own name
/// (before any `=`) is a specifier; string and character literals and nested lists
/// (`meta=(…)`) are values, never specifiers.
fn spec_has_word(spec: &str, word: &str) -> bool {
    specifiers(spec).contains(&word)
}

/// The specifier names of a macro's argument list: the first identifier of each top-level
/// argument, literals and nested parentheses skipped.
fn specifiers(spec: &str) -> Vec<&str> {
    let b = spec.as_bytes();
    let (mut out, mut depth, mut i) = (Vec::new(), 0usize, 0usize);
    let mut want = true;
    while i < b.len() {
        match b[i] {
            b'"' | b'\'' => {
                i = skip_literal(b, i);
                continue;
            }
            b'(' => depth += 1,
            b')' => depth = depth.saturating_sub(1),
            b',' if depth <= 1 => want = true,
            c if want && depth == 1 && is_ident_byte(c) => {
                let start = i;
                while i < b.len() && is_ident_byte(b[i]) {
                    i += 1;
                }
                out.push(&spec[start..i]);
                want = false;
                continue;
            }
            c if !c.is_ascii_whitespace() => want = false,
            _ => {}
        }
        i += 1;
    }
    out
}

/// The name of the function declared after `from`: the last identifier before the first `(`.
fn next_function_name(text: &str, from: usize) -> Option<String> {
    let rest = text.get(from..)?;
    let paren = rest.find('(')?;
    let head = &rest[..paren];
    if head.contains(';') || head.contains('{') {
        return None;
    }
    head.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .rfind(|w| !w.is_empty())
        .map(str::to_string)
}

#[cfg(test)]
mod statement_tests {
    use super::*;

    #[test]
    fn a_statement_runs_to_its_closing_parenthesis() {
        let text = "void A::Bind()\n{\n  BindInt(Mode, // (\n    EGMC_PredictionMode::ServerAuth_Output_ClientValidated,\n    EGMC_CombineMode::CombineIfUnchanged);\n  Next();\n}\n";
        let f = SourceFile::new(PathBuf::from("a.cpp"), text.to_string(), None);
        let s = f.statement(3);
        assert_eq!(s.len(), 3, "{s:?}");
        assert!(s[2].contains("CombineIfUnchanged);"));
        assert_eq!(f.statement(6), vec!["  Next();"]);
        // An unclosed call stops at the limit.
        let open = format!("Bind(x,\n{}", "  y,\n".repeat(20));
        let g = SourceFile::new(PathBuf::from("b.cpp"), open, None);
        assert_eq!(g.statement(1).len(), STATEMENT_LINES);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blanking_keeps_lengths_lines_and_finds_rpcs() {
        let src = "UCLASS(meta=(A=\"(\"))\nclass MYGAME_API UX : public UGMC_OrganicMovementCmp\n{\n GENERATED_BODY()\n UFUNCTION(Server, Reliable)\n void ServerFire(int X);\n // UPROPERTY(x) stays\n};\n";
        let (b, rpcs) = blank_macros(src);
        assert_eq!(b.len(), src.len());
        assert_eq!(b.lines().count(), src.lines().count());
        assert!(!b.contains("UCLASS") && !b.contains("MYGAME_API") && !b.contains("GENERATED"));
        assert!(b.contains("// UPROPERTY(x) stays"));
        assert_eq!(rpcs, vec!["ServerFire".to_string()]);
    }

    /// A specifier is a top-level argument's own name: a category or display name that holds
    /// "Client" or "Server" in a string, a nested meta list or a value after `=` is not one.
    #[test]
    fn rpc_specifiers_are_read_as_tokens_not_inside_strings() {
        let decl = |spec: &str| format!("{spec}\n bool IsReady() const;\n");
        for (spec, rpc) in [
            (
                "UFUNCTION(BlueprintPure, Category=\"GMAS|Client-Auth\")",
                false,
            ),
            (
                "UFUNCTION(BlueprintCallable, meta=(DisplayName=\"Server Fire\"))",
                false,
            ),
            ("UFUNCTION(BlueprintPure, Category = Client)", false),
            ("UFUNCTION(BlueprintPure, Category='S')", false),
            ("UFUNCTION(Client, Reliable, Category=\"GMAS|Net\")", true),
            ("UFUNCTION( Server , Unreliable )", true),
            ("UFUNCTION(BlueprintCallable, NetMulticast, Reliable)", true),
        ] {
            let (_, rpcs) = blank_macros(&decl(spec));
            assert_eq!(!rpcs.is_empty(), rpc, "{spec}: {rpcs:?}");
        }
    }

    #[test]
    fn unbalanced_macro_blanks_only_its_name() {
        let (b, _) = blank_macros("UPROPERTY(EditAnywhere\nint X;");
        assert!(b.starts_with("         (EditAnywhere"));
    }

    #[test]
    fn decoding_reports_what_it_did() {
        assert!(matches!(
            decode(b"int x;\0"),
            Err(ReadProblem::Binary { offset: 6 })
        ));
        let (t, r) = decode(b"// \xA9 2024\nint x;").unwrap();
        assert!(t.contains('\u{A9}'));
        assert!(r.unwrap().contains("line 1"));
        let (t, r) = decode(&[0xFF, 0xFE, b'i', 0, b'n', 0, b't', 0]).unwrap();
        assert_eq!(t, "int");
        assert!(r.unwrap().contains("UTF-16"));
    }
}
