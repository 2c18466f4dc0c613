//! Writing outputs without destroying inputs: every command's output paths are checked
//! against its inputs, files are replaced only by an atomic rename of a complete new file
//! (never left half-written), and errors name the path and what was expected.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Why an output cannot be written. Each variant names the path (and the option, where a
/// command's flag named it); the text is what the CLI prints.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("{}: this is the command's input ({}); write the output to another file", out.display(), input.display())]
    IsAnInput { out: PathBuf, input: PathBuf },
    #[error("{what} {}: {} is not a folder", out.display(), folder.display())]
    ParentNotAFolder {
        what: String,
        out: PathBuf,
        folder: PathBuf,
    },
    #[error("{what} {}: the folder {} does not exist", out.display(), folder.display())]
    NoSuchFolder {
        what: String,
        out: PathBuf,
        folder: PathBuf,
    },
    #[error("{what} {}: is a folder; expected a file name", out.display())]
    IsAFolder { what: String, out: PathBuf },
    #[error("{what} {}: names a folder (it ends with a separator), and no such folder exists; expected a file name, in a folder that exists", out.display())]
    NamesAMissingFolder { what: String, out: PathBuf },
    #[error("{what} {}: is not a regular file (a device or a pipe); expected a file name", out.display())]
    NotARegularFile { what: String, out: PathBuf },
    #[error("{what} {}: cannot write in {}: {source}", out.display(), folder.display())]
    FolderNotWritable {
        what: String,
        out: PathBuf,
        folder: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: exists; a recording is never replaced without --force", path.display())]
    RecordingExists { path: PathBuf },
}

/// Commands and the app report errors as text; `?` turns an output error into its message.
impl From<OutputError> for String {
    fn from(e: OutputError) -> String {
        e.to_string()
    }
}

/// Whether `a` and `b` name the same file (through links, `..` and relative paths). A path
/// that does not exist yet is compared by its folder (resolved) and its name.
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    resolved(a) == resolved(b)
}

/// Where a path leads: the file itself when it exists, else its folder resolved (links, `..`)
/// with its name, else its absolute spelling.
fn resolved(p: &Path) -> PathBuf {
    if let Ok(c) = std::fs::canonicalize(p) {
        return c;
    }
    match (p.parent(), p.file_name()) {
        (Some(dir), Some(name)) => {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            std::fs::canonicalize(dir)
                .map(|d| d.join(name))
                .unwrap_or_else(|_| absolute(p))
        }
        _ => absolute(p),
    }
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Refuses an output that is one of the command's inputs.
pub fn not_an_input(out: &Path, inputs: &[&Path]) -> Result<(), OutputError> {
    match inputs.iter().find(|i| same_file(out, i)) {
        Some(i) => Err(OutputError::IsAnInput {
            out: out.to_path_buf(),
            input: i.to_path_buf(),
        }),
        None => Ok(()),
    }
}

/// Checks that `out` can be written as a file: its folder exists and is a folder, and it is
/// not itself a folder or a device. `what` names the option (e.g. `--summary-json`).
pub fn writable_file(out: &Path, what: &str) -> Result<(), OutputError> {
    // `new/` names a folder even before it exists (the parent of `new/` is the one above).
    let text = out.as_os_str().to_string_lossy();
    if text.ends_with(std::path::MAIN_SEPARATOR) || text.ends_with('/') {
        return Err(match std::fs::metadata(out) {
            Ok(_) => OutputError::IsAFolder {
                what: what.into(),
                out: out.to_path_buf(),
            },
            Err(_) => OutputError::NamesAMissingFolder {
                what: what.into(),
                out: out.to_path_buf(),
            },
        });
    }
    let parent = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    match std::fs::metadata(parent) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(OutputError::ParentNotAFolder {
                what: what.into(),
                out: out.to_path_buf(),
                folder: parent.to_path_buf(),
            });
        }
        Err(_) => {
            return Err(OutputError::NoSuchFolder {
                what: what.into(),
                out: out.to_path_buf(),
                folder: parent.to_path_buf(),
            });
        }
    }
    if let Ok(m) = std::fs::metadata(out) {
        if m.is_dir() {
            return Err(OutputError::IsAFolder {
                what: what.into(),
                out: out.to_path_buf(),
            });
        }
        if !m.is_file() {
            return Err(OutputError::NotARegularFile {
                what: what.into(),
                out: out.to_path_buf(),
            });
        }
    }
    // The folder must take a new file (the output is written next to it, then renamed).
    let probe = temp_sibling(out);
    match std::fs::File::create(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(source) => Err(OutputError::FolderNotWritable {
            what: what.into(),
            out: out.to_path_buf(),
            folder: parent.to_path_buf(),
            source,
        }),
    }
}

/// The temporary sibling a file is written to before it replaces `path`.
pub fn temp_sibling(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    path.with_file_name(format!(".{name}.part-{}", std::process::id()))
}

/// Writes a file through `write` into a temporary sibling, then renames it over `path`: an
/// existing file is replaced only by a complete new one. Errors name the path.
pub fn write_atomic<T>(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<T>,
) -> Result<T, OutputError> {
    let tmp = temp_sibling(path);
    let result: std::io::Result<T> = (|| {
        let f = std::fs::File::create(&tmp)?;
        let mut w = std::io::BufWriter::new(f);
        let v = write(&mut w)?;
        w.flush()?;
        w.get_ref().sync_all()?;
        Ok(v)
    })();
    match result {
        Ok(v) => std::fs::rename(&tmp, path).map(|()| v).map_err(|source| {
            let _ = std::fs::remove_file(&tmp);
            OutputError::Write {
                path: path.to_path_buf(),
                source,
            }
        }),
        Err(source) => {
            let _ = std::fs::remove_file(&tmp);
            Err(OutputError::Write {
                path: path.to_path_buf(),
                source,
            })
        }
    }
}

/// [`write_atomic`] of a byte string.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    write_atomic(path, |w| w.write_all(bytes))
}

/// A recording is never replaced without `--force`.
pub fn new_recording(path: &Path, force: bool) -> Result<(), OutputError> {
    if path.exists() && !force {
        return Err(OutputError::RecordingExists {
            path: path.to_path_buf(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("movescope-output-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn the_same_file_is_found_through_other_spellings() {
        let d = dir("same");
        let f = d.join("a.msrec");
        std::fs::write(&f, b"x").unwrap();
        let other = d.join("sub").join("..").join("a.msrec");
        std::fs::create_dir_all(d.join("sub")).unwrap();
        assert!(same_file(&f, &other));
        assert!(not_an_input(&other, &[&f]).is_err());
        assert!(not_an_input(&d.join("b.msrec"), &[&f]).is_ok());
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn an_atomic_write_leaves_the_old_file_whole_when_it_fails() {
        let d = dir("atomic");
        let f = d.join("out.csv");
        std::fs::write(&f, b"old").unwrap();
        let e = write_atomic(&f, |w| {
            w.write_all(b"half")?;
            Err::<(), _>(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert!(matches!(e, OutputError::Write { .. }), "{e:?}");
        let e = e.to_string();
        assert!(e.contains("out.csv") && e.contains("disk full"), "{e}");
        assert_eq!(std::fs::read(&f).unwrap(), b"old");
        assert!(!temp_sibling(&f).exists());
        write_file(&f, b"new").unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"new");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn unwritable_targets_are_named_with_what_was_expected() {
        let d = dir("targets");
        let file = d.join("plain");
        std::fs::write(&file, b"x").unwrap();
        let e = writable_file(&file.join("x.json"), "--summary-json").unwrap_err();
        assert!(
            matches!(&e, OutputError::ParentNotAFolder { what, .. } if what == "--summary-json")
        );
        assert!(e.to_string().contains("is not a folder"), "{e}");
        let e = writable_file(&d.join("nosuch").join("x.json"), "--out").unwrap_err();
        assert!(matches!(e, OutputError::NoSuchFolder { .. }));
        assert!(e.to_string().contains("does not exist"), "{e}");
        // A name ending with a separator names a folder, existing or not.
        let missing = PathBuf::from(format!("{}/", d.join("nosuch").display()));
        let e = writable_file(&missing, "--record").unwrap_err();
        assert!(
            matches!(e, OutputError::NamesAMissingFolder { .. }),
            "{e:?}"
        );
        assert!(e.to_string().contains("no such folder exists"), "{e}");
        let existing = PathBuf::from(format!("{}/", d.display()));
        let e = writable_file(&existing, "--record").unwrap_err();
        assert!(matches!(e, OutputError::IsAFolder { .. }), "{e:?}");
        let e = writable_file(&d, "--out").unwrap_err();
        assert!(matches!(e, OutputError::IsAFolder { .. }));
        assert!(e.to_string().contains("is a folder"), "{e}");
        #[cfg(unix)]
        {
            let e = writable_file(Path::new("/dev/full"), "--out").unwrap_err();
            assert!(matches!(e, OutputError::NotARegularFile { .. }));
            assert!(e.to_string().contains("not a regular file"), "{e}");
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}
