//! Session recordings (`.msrec`): a human-readable RON header followed by a compact body of
//! checksummed, compressed chunks and an index for seeking.
//!
//! ```text
//! MOVESCOPE-RECORDING format=2 header=<N> crc=<CRC-32 of the RON, hex>\n     one text line
//! <N bytes of RON: Header>\n                      readable in any editor
//! header copy chunk                               the same RON, checksummed (format 2)
//! chunk*                                          one per second of session time
//! index chunk                                     chunk offsets and times, the run's footer
//! trailer: "MSTRAIL1" + u64 LE offset of the index chunk
//! ```
//!
//! A chunk is a 44-byte frame ([`ChunkFrame`](format::ChunkFrame)) and its payload,
//! zstd-compressed: the records' session times as XOR-delta byte planes, then each record's
//! `(machine, event)` in postcard. The frame carries a CRC-32 over itself and the payload, so
//! damage is found exactly where it starts. The recorder writes a chunk as soon as a second of
//! session time has gathered (a crash or kill loses at most that second); the index and
//! trailer come only when the recording is finished, and a file without them is read by
//! scanning its chunks.
//!
//! Chunk boundaries depend only on the records, so a virtual-time session writes the same
//! bytes every time (apart from the header's wall-clock start).

mod encoding;
mod format;
mod reader;
mod summary;
mod writer;

pub use self::format::{
    CHUNK_SECONDS, ChunkInfo, Damage, EXTENSION, FORMAT_VERSION, Footer, Header, RecordingError,
};
pub use self::reader::Recording;
pub use self::writer::{Recorder, RecordingStats, WriteError, write_all};

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::format::{
        CHUNK_MAGIC, ChunkFrame, FRAME_BYTES, IndexPayload, MAGIC_LINE, TRAILER_MAGIC,
    };
    use super::writer::ZSTD_LEVEL;
    use super::*;
    use crate::model::telemetry::{Event, Machine, Record};
    use crate::session::preset::Preset;

    fn sample_records(n: usize) -> Vec<Record> {
        (0..n)
            .map(|i| Record {
                t: i as f64 * 0.01,
                machine: if i % 3 == 0 {
                    Machine::Server
                } else {
                    Machine::Client((i % 3) as u16)
                },
                event: if i % 2 == 0 {
                    Event::Frame { dt: 1.0 / 60.0 }
                } else {
                    Event::Rtt {
                        rtt: 0.05 + i as f64 * 1e-6,
                    }
                },
            })
            .collect()
    }

    /// A file in a folder of the test's own, removed with it when dropped (also when the
    /// test fails).
    struct TmpFile(PathBuf);

    impl std::ops::Deref for TmpFile {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.0
        }
    }

    impl AsRef<Path> for TmpFile {
        fn as_ref(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for TmpFile {
        fn drop(&mut self) {
            if let Some(dir) = self.0.parent() {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
    }

    fn tmp(name: &str) -> TmpFile {
        let dir = std::env::temp_dir().join(format!(
            "movescope-rec-{}-{}",
            std::process::id(),
            name.replace('.', "-")
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TmpFile(dir.join(name))
    }

    #[test]
    fn round_trip_with_index() {
        let path = tmp("round.msrec");
        let header = Header::new(&Preset::builtin_default(), "default", "deterministic").unwrap();
        let recs = sample_records(1000);
        let stats = write_all(&path, &header, recs.clone(), Footer::default()).unwrap();
        assert_eq!(stats.records, 1000);
        assert_eq!(stats.chunks, 10, "one chunk per session second");
        let r = Recording::open(&path).unwrap();
        assert!(r.footer.is_some() && r.damage.is_none());
        assert_eq!(r.header, header);
        assert_eq!(r.chunks.len(), 10);
        let (back, damage) = r.load_all();
        assert!(damage.is_none());
        assert_eq!(back, recs);
        assert_eq!(r.chunk_at(5.5), Some(5));
        assert_eq!(r.chunk_at(-1.0), Some(0));
        assert_eq!(r.chunk_at(100.0), Some(9));
    }

    #[test]
    fn create_refuses_an_existing_file_and_a_folder_naming_the_path() {
        let path = tmp("exists.msrec");
        let header = Header::new(&Preset::builtin_default(), "default", "deterministic").unwrap();
        std::fs::write(&*path, b"old").unwrap();
        match Recorder::create(&path, &header) {
            Err(WriteError::Exists { path: p }) => assert_eq!(p, *path),
            Err(e) => panic!("{e:?}"),
            Ok(_) => panic!("an existing file was taken"),
        }
        assert_eq!(std::fs::read(&*path).unwrap(), b"old", "left as it was");
        let dir = path.with_extension("d");
        std::fs::create_dir_all(&dir).unwrap();
        match Recorder::create_replacing(&dir, &header) {
            Err(e @ WriteError::IsAFolder { .. }) => {
                assert!(e.to_string().contains("is a folder"), "{e}");
            }
            Err(e) => panic!("{e:?}"),
            Ok(_) => panic!("a folder was taken as a recording"),
        }
        // Replacing: the old file stays until the new one is finished.
        let mut rec = Recorder::create_replacing(&path, &header).unwrap();
        for r in sample_records(10) {
            rec.push(&r).unwrap();
        }
        assert_eq!(std::fs::read(&*path).unwrap(), b"old");
        let stats = rec.finish(Footer::default()).unwrap();
        assert_eq!(stats.path, *path);
        assert!(Recording::open(&path).is_ok());
    }

    #[test]
    fn unfinished_file_is_scanned_and_truncation_reports_where() {
        let path = tmp("cut.msrec");
        let header = Header::new(&Preset::builtin_default(), "default", "live").unwrap();
        let recs = sample_records(500);
        write_all(&path, &header, recs.clone(), Footer::default()).unwrap();
        let full = std::fs::read(&path).unwrap();
        let r = Recording::open(&path).unwrap();
        let third = r.chunks[3].offset as usize;
        // Cut in the middle of chunk 3: chunks 0..3 load, damage names chunk 3's offset.
        std::fs::write(&path, &full[..third + 60]).unwrap();
        let r = Recording::open(&path).unwrap();
        assert!(r.footer.is_none());
        let d = r.damage.clone().unwrap();
        assert_eq!((d.offset, d.chunk), (third as u64, 3));
        assert!(d.message.contains("ends inside"), "{}", d.message);
        let (back, damage) = r.load_all();
        assert_eq!(damage.unwrap().chunk, 3);
        assert_eq!(back, recs[..300].to_vec());
        // A flipped byte inside chunk 1 of a finished file: found when the chunk is read.
        let mut bad = full.clone();
        let second = r.chunks[1].offset as usize;
        bad[second + FRAME_BYTES + 5] ^= 0x40;
        std::fs::write(&path, &bad).unwrap();
        let r = Recording::open(&path).unwrap();
        let (back, damage) = r.load_all();
        let d = damage.unwrap();
        assert_eq!((d.chunk, d.offset), (1, second as u64));
        assert!(d.message.contains("checksum"), "{}", d.message);
        // Only the damaged chunk is lost: the chunks after it load.
        let mut want = recs[..100].to_vec();
        want.extend_from_slice(&recs[200..]);
        assert_eq!(back, want);
        assert!(d.to_string().contains(&format!("byte {second}")));
        // The same flip in a file without its index (scanned): the walk finds chunk 2 past
        // the damage and stops at the torn chunk 3; both damaged places are listed.
        std::fs::write(&path, &bad[..third + 60]).unwrap();
        let r = Recording::open(&path).unwrap();
        assert!(r.footer.is_none());
        let places: Vec<(u64, u32)> = r.damaged.iter().map(|d| (d.offset, d.chunk)).collect();
        assert_eq!(places, [(second as u64, 1), (third as u64, 3)]);
        let notes = r.notes().join("\n");
        assert!(
            notes.contains(&format!(
                "also damaged (each costs its chunk): byte {third} (chunk 3)"
            )),
            "{notes}"
        );
        let (back, damage) = r.load_all();
        assert_eq!(damage.unwrap().chunk, 1);
        let mut want = recs[..100].to_vec();
        want.extend_from_slice(&recs[200..300]);
        assert_eq!(back, want);
    }

    #[test]
    fn newer_format_is_refused_naming_both_versions() {
        let path = tmp("newer.msrec");
        let header = Header::new(&Preset::builtin_default(), "default", "live").unwrap();
        write_all(&path, &header, sample_records(10), Footer::default()).unwrap();
        // A newer movescope writes its own version into the header (and its checksum).
        let bytes = std::fs::read(&path).unwrap();
        let nl = bytes.iter().position(|b| *b == b'\n').unwrap();
        let first = String::from_utf8(bytes[..nl].to_vec()).unwrap();
        let header_len: usize = first
            .split(' ')
            .find_map(|w| w.strip_prefix("header="))
            .unwrap()
            .parse()
            .unwrap();
        let ron_text = String::from_utf8(bytes[nl + 1..nl + 1 + header_len].to_vec())
            .unwrap()
            .replace(
                &format!("app_version: \"{}\"", env!("CARGO_PKG_VERSION")),
                "app_version: \"99.0.0\"",
            );
        assert!(ron_text.contains("99.0.0"));
        let mut s = format!(
            "{MAGIC_LINE} format=7 header={} crc={:08x}\n{ron_text}",
            ron_text.len(),
            crc32fast::hash(ron_text.as_bytes()),
        )
        .into_bytes();
        s.extend_from_slice(&bytes[nl + 1 + header_len..]);
        std::fs::write(&path, &s).unwrap();
        let e = Recording::open(&path).unwrap_err().to_string();
        assert!(
            e.contains("format 7") && e.contains(&format!("format {FORMAT_VERSION}")),
            "{e}"
        );
        assert!(
            e.contains("99.0.0") && e.contains(env!("CARGO_PKG_VERSION")),
            "{e}"
        );
    }

    #[test]
    fn a_damaged_format_digit_is_damage_not_a_newer_file() {
        // The header says this movescope wrote it, so format 7 on the first line is a flipped
        // digit: the file opens from its backup header and says so.
        let path = tmp("digit.msrec");
        let header = Header::new(&Preset::builtin_default(), "default", "live").unwrap();
        let recs = sample_records(10);
        write_all(&path, &header, recs.clone(), Footer::default()).unwrap();
        let mut s = std::fs::read(&path).unwrap();
        s[MAGIC_LINE.len() + " format=".len()] = b'7';
        std::fs::write(&path, &s).unwrap();
        let r = Recording::open(&path).unwrap();
        let notes = r.notes().join(" ");
        assert!(notes.contains("first line is damaged"), "{notes}");
        assert_eq!(r.load_all().0, recs);
    }

    #[test]
    fn header_errors_give_line_and_column() {
        let path = tmp("hdr.msrec");
        let header = Header::new(&Preset::builtin_default(), "default", "live").unwrap();
        write_all(&path, &header, sample_records(10), Footer::default()).unwrap();
        let text = std::fs::read(&path).unwrap();
        // Without its checksum and its backup copy (a format 1 file), a damaged header is
        // reported where it is damaged.
        let first_line_end = text.iter().position(|b| *b == b'\n').unwrap();
        let line = String::from_utf8_lossy(&text[..first_line_end]).to_string();
        let crc_at = line.find(" crc=").unwrap();
        let mut b = line[..crc_at]
            .replace(&format!("format={FORMAT_VERSION}"), "format=1")
            .into_bytes();
        b.extend_from_slice(&text[first_line_end..]);
        let copy = b.windows(4).position(|w| w == CHUNK_MAGIC).unwrap();
        b[copy..copy + 4].copy_from_slice(b"XXXX");
        let s = String::from_utf8_lossy(&b).to_string();
        let at = s.find("seed:").unwrap();
        b[at + 6] = b'x';
        std::fs::write(&path, &b).unwrap();
        let e = Recording::open(&path).unwrap_err();
        let (line, _) = e.position.expect("a header position");
        let expected_line = s[..at].lines().count();
        assert_eq!(line, expected_line, "{e}");
        assert!(
            e.to_string()
                .starts_with(&format!("{}:{line}:", path.display()))
        );
    }

    #[test]
    fn a_damaged_header_is_replaced_by_its_backup_copy() {
        let path = tmp("flip.msrec");
        let header = Header::new(&Preset::builtin_default(), "default", "live").unwrap();
        let recs = sample_records(300);
        write_all(&path, &header, recs.clone(), Footer::default()).unwrap();
        let good = std::fs::read(&path).unwrap();
        let header_end = good.windows(4).position(|w| w == CHUNK_MAGIC).unwrap();
        let mut opened = 0;
        // One flipped bit anywhere in the first line or the RON header.
        for at in (0..header_end).step_by(5) {
            let mut b = good.clone();
            b[at] ^= 1 << (at % 8);
            std::fs::write(&path, &b).unwrap();
            let rec = Recording::open(&path).unwrap_or_else(|e| panic!("flip at byte {at}: {e}"));
            assert_eq!(
                rec.header, header,
                "flip at byte {at}: the header as written"
            );
            let (back, damage) = rec.load_all();
            assert!(damage.is_none(), "flip at byte {at}: {damage:?}");
            assert_eq!(back, recs, "flip at byte {at}");
            opened += 1;
        }
        assert!(opened > 100, "{opened}");
    }

    /// Replaces a finished recording's index with a valid (checksummed) one saying `chunks`
    /// and `footer`.
    fn rewrite_index(path: &Path, chunks: Vec<ChunkInfo>, footer: Footer) {
        let mut b = std::fs::read(path).unwrap();
        let mut at = [0u8; 8];
        at.copy_from_slice(&b[b.len() - 8..]);
        let index_at = u64::from_le_bytes(at) as usize;
        let body = postcard::to_stdvec(&IndexPayload { chunks, footer }).unwrap();
        let payload = zstd::bulk::compress(&body, ZSTD_LEVEL).unwrap();
        let mut frame =
            ChunkFrame::decode(b[index_at..index_at + FRAME_BYTES].try_into().unwrap()).unwrap();
        frame.raw_len = body.len() as u32;
        frame.payload_len = payload.len() as u32;
        frame.crc = frame.checksum(&payload);
        b.truncate(index_at);
        b.extend_from_slice(&frame.encode());
        b.extend_from_slice(&payload);
        b.extend_from_slice(&TRAILER_MAGIC);
        b.extend_from_slice(&(index_at as u64).to_le_bytes());
        std::fs::write(path, &b).unwrap();
    }

    #[test]
    fn an_index_with_wrong_offsets_is_replaced_by_a_scan() {
        let path = tmp("index.msrec");
        let header = Header::new(&Preset::builtin_default(), "default", "live").unwrap();
        let recs = sample_records(300_000);
        write_all(&path, &header, recs.clone(), Footer::default()).unwrap();
        let good = Recording::open(&path).unwrap();
        assert!(good.chunks.len() > 2 && good.footer.is_some());
        // Re-write the index with every offset shifted by one byte (a valid index chunk).
        let mut chunks = good.chunks.clone();
        for c in &mut chunks {
            c.offset += 1;
        }
        rewrite_index(&path, chunks, Footer::default());
        let rec = Recording::open(&path).unwrap();
        assert_eq!(rec.chunks, good.chunks, "found by scanning");
        assert_eq!(rec.load_all().0, recs);
    }

    /// Every single-bit flip in the first line and the RON header: the file opens with the
    /// header as written, and whenever the backup copy was used the notes say so (a flip in
    /// `crc=` used to skip the check and open the header unchecked, without a word).
    #[test]
    fn every_header_flip_that_uses_the_backup_copy_says_so() {
        let path = tmp("flips.msrec");
        let header = Header::new(&Preset::builtin_default(), "default", "live").unwrap();
        write_all(&path, &header, sample_records(50), Footer::default()).unwrap();
        let good = std::fs::read(&path).unwrap();
        let header_end = good.windows(4).position(|w| w == CHUNK_MAGIC).unwrap();
        let first_line = good.iter().position(|b| *b == b'\n').unwrap();
        let (mut with_note, mut without, mut tried) = (0, 0, 0);
        for at in 0..header_end {
            // Every bit of the first line; one bit a byte in the RON (every position).
            let bits = if at <= first_line {
                0..8
            } else {
                at % 8..at % 8 + 1
            };
            for bit in bits {
                tried += 1;
                let mut b = good.clone();
                b[at] ^= 1 << bit;
                std::fs::write(&path, &b).unwrap();
                let Ok(rec) = Recording::open(&path) else {
                    continue;
                };
                let noted = rec
                    .notes()
                    .iter()
                    .any(|n| n.contains("backup copy was used"));
                if rec.header_note.is_some() {
                    assert!(noted, "byte {at} bit {bit}: the copy was used silently");
                    with_note += 1;
                } else {
                    // The primary header was used: it must be the one written.
                    assert_eq!(rec.header, header, "byte {at} bit {bit}: a changed header");
                    without += 1;
                }
            }
        }
        assert!(with_note + 40 > tried, "{with_note} of {tried} flips");
        assert!(without < 40, "{without} flips opened the primary header");
    }

    /// An index whose checksum is valid but which says something else than the chunks — no
    /// chunk at all, times that are not numbers — is repaired from a scan, and says so; counts
    /// and spans are those of the chunks.
    #[test]
    fn an_index_that_disagrees_with_the_chunks_is_repaired_and_says_so() {
        let path = tmp("zero-index.msrec");
        let header = Header::new(&Preset::builtin_default(), "default", "live").unwrap();
        let recs = sample_records(5000);
        write_all(&path, &header, recs.clone(), Footer::default()).unwrap();
        let good = Recording::open(&path).unwrap();
        assert!(good.chunks.len() > 1 && good.notes().is_empty());
        rewrite_index(&path, Vec::new(), Footer::default());
        let rec = Recording::open(&path).unwrap();
        assert_eq!(rec.chunks, good.chunks);
        assert_eq!(rec.record_count(), recs.len() as u64);
        let notes = rec.notes().join(" ");
        assert!(
            notes.contains("the index disagrees with the chunks (it lists 0 chunks of 0 records")
                && notes.contains("repaired"),
            "{notes}"
        );
        assert_eq!(rec.load_all().0, recs);
        // NaN times in the index: the span is the chunks', with the note.
        let mut chunks = good.chunks.clone();
        for c in &mut chunks {
            c.t_first = f64::NAN;
            c.t_last = f64::NAN;
        }
        rewrite_index(&path, chunks, Footer::default());
        let rec = Recording::open(&path).unwrap();
        assert_eq!(rec.span(), good.span());
        assert!(rec.span().1 > 0.0);
        assert!(rec.notes().join(" ").contains("disagrees"));
    }

    /// A chunk frame claiming more records than its bytes can hold (a crafted count of
    /// u32::MAX) is damage where it is, not a count of 4 294 967 295 records.
    #[test]
    fn a_frame_claiming_more_records_than_it_holds_is_damage() {
        let path = tmp("frame-count.msrec");
        let header = Header::new(&Preset::builtin_default(), "default", "live").unwrap();
        let recs = sample_records(5000);
        write_all(&path, &header, recs.clone(), Footer::default()).unwrap();
        let good = Recording::open(&path).unwrap();
        let second = good.chunks[1];
        let mut b = std::fs::read(&path).unwrap();
        let at = second.offset as usize;
        let mut frame = ChunkFrame::decode(b[at..at + FRAME_BYTES].try_into().unwrap()).unwrap();
        let payload = b[at + FRAME_BYTES..at + FRAME_BYTES + frame.payload_len as usize].to_vec();
        frame.count = u32::MAX;
        frame.crc = frame.checksum(&payload);
        b[at..at + FRAME_BYTES].copy_from_slice(&frame.encode());
        std::fs::write(&path, &b).unwrap();
        // A finished file: the index vouches for the chunk's place, reading it finds the
        // damage, and the chunks around it load.
        let rec = Recording::open(&path).unwrap();
        let (back, damage) = rec.load_all();
        let damage = damage.expect("damage at the crafted chunk");
        assert_eq!((damage.offset, damage.chunk), (second.offset, 1));
        assert!(
            damage.message.contains("claims 4294967295 records"),
            "{damage}"
        );
        let chunk = |i: usize| good.read_chunk(i).unwrap();
        let want: Vec<Record> = (0..good.chunks.len())
            .filter(|i| *i != 1)
            .flat_map(chunk)
            .collect();
        assert_eq!(back, want);
        // Cut before the last chunk (no index: scanned): the crafted chunk is lost; every other
        // is found past it.
        let index_at = good.chunks.last().map(|c| c.offset).unwrap() as usize;
        std::fs::write(&path, &b[..index_at]).unwrap();
        let rec = Recording::open(&path).unwrap();
        assert!(rec.footer.is_none());
        let damage = rec.damage.as_ref().expect("damage at the crafted chunk");
        assert_eq!(damage.offset, second.offset);
        let mut want = good.chunks[..good.chunks.len() - 1].to_vec();
        want.remove(1);
        assert_eq!(rec.chunks, want);
    }

    /// Damage to the header's backup copy in a file without its index costs no records: the
    /// scan finds the first records chunk past it and says what was hit.
    #[test]
    fn a_damaged_header_copy_in_a_scanned_file_loses_nothing_and_says_so() {
        let path = tmp("copy.msrec");
        let header = Header::new(&Preset::builtin_default(), "default", "live").unwrap();
        write_all(&path, &header, sample_records(3000), Footer::default()).unwrap();
        let good = Recording::open(&path).unwrap();
        let mut b = std::fs::read(&path).unwrap();
        let copy = b.windows(4).position(|w| w == CHUNK_MAGIC).unwrap();
        assert!((copy as u64) < good.chunks[0].offset);
        b[copy + 4] ^= 0x08;
        let index_at = good.chunks.last().unwrap().offset as usize;
        std::fs::write(&path, &b[..index_at]).unwrap();
        let rec = Recording::open(&path).unwrap();
        assert_eq!(rec.damage, None);
        assert_eq!(rec.chunks, good.chunks[..good.chunks.len() - 1]);
        let note = rec.copy_note.clone().expect("a note on the copy");
        assert!(
            note.contains("the header's backup copy, no records were lost"),
            "{note}"
        );
        assert!(rec.notes().contains(&note));
    }

    /// Chunk times of ±1e300 under a valid checksum are damage in that chunk, and no message
    /// prints them as 300-digit numbers.
    #[test]
    fn chunk_times_no_session_reaches_are_damage_and_print_short() {
        let path = tmp("frame-times.msrec");
        let header = Header::new(&Preset::builtin_default(), "default", "live").unwrap();
        write_all(&path, &header, sample_records(3000), Footer::default()).unwrap();
        let good = Recording::open(&path).unwrap();
        let mut b = std::fs::read(&path).unwrap();
        let at = good.chunks[1].offset as usize;
        let mut frame = ChunkFrame::decode(b[at..at + FRAME_BYTES].try_into().unwrap()).unwrap();
        let payload = b[at + FRAME_BYTES..at + FRAME_BYTES + frame.payload_len as usize].to_vec();
        (frame.t_first, frame.t_last) = (-1e300, 1e300);
        frame.crc = frame.checksum(&payload);
        b[at..at + FRAME_BYTES].copy_from_slice(&frame.encode());
        std::fs::write(&path, &b).unwrap();
        let rec = Recording::open(&path).unwrap();
        assert_eq!(rec.span(), good.span());
        let (_, damage) = rec.load_all();
        let damage = damage.expect("damage at the chunk");
        assert_eq!(damage.chunk, 1);
        assert!(damage.message.contains("are not session times"), "{damage}");
        let said = format!("{}\n{damage}\n{}", rec.notes().join("\n"), rec.describe());
        assert!(said.lines().all(|l| l.len() < 400), "{said}");
        assert!(said.contains("-1.000e300 s"), "{said}");
    }

    #[test]
    fn claims_in_a_crafted_index_bound_nothing_but_themselves() {
        let path = tmp("crafted.msrec");
        let header = Header::new(&Preset::builtin_default(), "default", "live").unwrap();
        let recs = sample_records(2000);
        write_all(&path, &header, recs.clone(), Footer::default()).unwrap();
        let good = Recording::open(&path).unwrap();
        // Huge record counts (the frames still say the truth) and a footer of 1e12 s.
        let mut chunks = good.chunks.clone();
        for c in &mut chunks {
            c.count = u32::MAX;
            c.t_last = 90_112.0;
        }
        rewrite_index(
            &path,
            chunks,
            Footer {
                simulated_seconds: 1e12,
                ..Footer::default()
            },
        );
        let rec = Recording::open(&path).unwrap();
        // The spot check finds the counts wrong: the chunks come from a scan.
        assert_eq!(rec.chunks, good.chunks);
        let (back, _) = rec.load_all();
        assert_eq!(back, recs);
        let last = recs.last().unwrap().t;
        let secs = rec.resimulation_seconds();
        assert!(
            secs <= last + CHUNK_SECONDS,
            "{secs} s for records ending at {last} s"
        );
    }

    proptest::proptest! {
        /// The packed records (pawn samples on and off their grids, closed and executed moves
        /// in and out of the wire's units, in any order) read back bit for bit.
        #[test]
        fn packed_records_read_back_exactly(
            xs in proptest::collection::vec((0u8..6, -1.0e5f64..1.0e5, 0u16..4, 0u32..50), 1..400),
        ) {
            use crate::model::telemetry::{PawnSample, RemoteMove, SampleKind};
            let mut t = 0.0;
            let records: Vec<Record> = xs
                .iter()
                .map(|&(k, x, who, id)| {
                    t += (x.abs() % 7.0) / 100.0;
                    let machine = if who == 3 { Machine::Server } else { Machine::Client(who) };
                    let units = |v: f64| crate::model::cycle::quantize_time(v);
                    let event = match k {
                        0 => Event::PawnSample(std::sync::Arc::new(PawnSample::on_grid(
                            who,
                            (id % 2 == 0).then_some(who),
                            SampleKind::Displayed,
                            glam::DVec3::new(x, -x / 3.0, 0.0),
                            glam::DVec3::new(x / 7.0, 1.5, -0.0),
                            x / 11.0,
                        ))),
                        1 => Event::PawnSample(std::sync::Arc::new(PawnSample {
                            pawn: who,
                            owner: None,
                            kind: SampleKind::Predicted,
                            location: glam::DVec3::new(x, x.abs().sqrt(), f64::MIN_POSITIVE),
                            velocity: glam::DVec3::splat(x / 3.0),
                            yaw: x,
                        })),
                        2 => Event::MoveClosed {
                            move_id: id,
                            timestamp: units(t),
                            delta: units(x.abs() % 0.05),
                            frames: who,
                            substeps: 1,
                        },
                        3 => Event::MoveClosed {
                            move_id: id,
                            timestamp: t + 1e-9,
                            delta: x,
                            frames: 2,
                            substeps: 3,
                        },
                        4 => Event::RemoteMoveExecuted(std::sync::Arc::new(RemoteMove {
                            pawn: who,
                            client: who,
                            move_id: id,
                            timestamp: units(t - 0.05),
                            delta: units(0.016),
                            substeps: 1,
                            age: x / 1000.0,
                        })),
                        _ => Event::Frame { dt: x },
                    };
                    Record { t, machine, event }
                })
                .collect();
            let path = tmp("packed.msrec");
            let header = Header::new(&Preset::builtin_default(), "default", "live").unwrap();
            write_all(&path, &header, records.clone(), Footer::default()).unwrap();
            let (back, damage) = Recording::open(&path).unwrap().load_all();
            proptest::prop_assert!(damage.is_none());
            proptest::prop_assert_eq!(back.len(), records.len());
            for (a, b) in back.iter().zip(&records) {
                // Bit for bit (NaN-free inputs; -0.0 must stay -0.0).
                proptest::prop_assert_eq!(format!("{a:?}"), format!("{b:?}"));
                proptest::prop_assert_eq!(a, b);
            }
        }
    }

    #[test]
    fn not_a_recording() {
        let path = tmp("junk.msrec");
        std::fs::write(&path, b"hello\nworld").unwrap();
        let e = Recording::open(&path).unwrap_err().to_string();
        assert!(e.contains("not a movescope recording"), "{e}");
    }
}
