//! Names for files and folders made at a moment: a UTC date and time a person can read and
//! that sorts in time order (`2026-12-04_02-57-07`), from seconds since the Unix epoch.

/// `secs` since 1970-01-01 00:00:00 UTC as `YYYY-MM-DD_HH-MM-SS`.
pub fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rest = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}_{:02}-{:02}-{:02}",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// The moment now, as [`utc`] writes it.
pub fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    utc(secs)
}

/// The proleptic Gregorian date of day `z` after 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_read_as_a_calendar_does() {
        assert_eq!(utc(0), "1970-01-01_00-00-00");
        // 2026-12-04 02:57:07 UTC.
        assert_eq!(utc(1_796_353_027), "2026-12-04_02-57-07");
        // A leap day, and the last second of a year.
        assert_eq!(utc(951_782_400), "2000-02-29_00-00-00");
        assert_eq!(utc(1_767_225_599), "2025-12-31_23-59-59");
    }
}
