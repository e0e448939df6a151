//! Dates as the history sources write them: japanera's day dates, JMnedict's
//! `1543.1.31-1616.6.1` life spans and JMdict's `(1603-1868 CE)` year ranges.

use std::sync::LazyLock;

use manabi_schemas::history::{DatePrecision, HistoricalDate};
use regex::Regex;

/// A date known to the year, month or day. Years are astronomical (1 BCE = 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Date {
    pub year: i32,
    pub month: Option<u8>,
    pub day: Option<u8>,
    pub approximate: bool,
}

impl Date {
    pub fn year(year: i32) -> Self {
        Date {
            year,
            month: None,
            day: None,
            approximate: false,
        }
    }

    pub fn day(year: i32, month: u8, day: u8) -> Self {
        Date {
            year,
            month: Some(month),
            day: Some(day),
            approximate: false,
        }
    }

    /// A key that orders dates; unknown months and days sort first in their year.
    pub fn key(&self) -> (i32, u8, u8) {
        (self.year, self.month.unwrap_or(0), self.day.unwrap_or(0))
    }

    pub fn is_day_precise(&self) -> bool {
        self.day.is_some()
    }

    pub fn to_schema(self) -> HistoricalDate {
        let year = format_year(self.year);
        let (value, precision) = match (self.month, self.day) {
            (Some(month), Some(day)) => (format!("{year}-{month:02}-{day:02}"), DatePrecision::Day),
            (Some(month), None) => (format!("{year}-{month:02}"), DatePrecision::Month),
            _ => (year, DatePrecision::Year),
        };
        HistoricalDate {
            value,
            precision,
            approximate: self.approximate,
        }
    }

    /// `1543-01-31`, `1543-01`, `978` or `304 BCE`: for sentences.
    pub fn display(&self) -> String {
        match (self.month, self.day) {
            (Some(_), _) if self.year > 0 => {
                self.to_schema().value.trim_start_matches('0').to_string()
            }
            _ => self.display_year(),
        }
    }

    /// `1543`, or `304 BCE` for years before the common era.
    pub fn display_year(&self) -> String {
        if self.year <= 0 {
            format!("{} BCE", 1 - self.year)
        } else {
            self.year.to_string()
        }
    }
}

fn format_year(year: i32) -> String {
    if year < 0 {
        format!("-{:04}", -year)
    } else {
        format!("{year:04}")
    }
}

/// A start and an end, either of which may be unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub start: Option<Date>,
    pub end: Option<Date>,
}

impl Span {
    /// The years the span covers, when both ends are known.
    pub fn years(&self) -> Option<(i32, i32)> {
        Some((self.start?.year, self.end?.year))
    }

    /// `1543–1616`, `?–1896`, `1984–`.
    pub fn display(&self) -> String {
        let show = |date: Option<Date>| date.map(|d| d.display_year()).unwrap_or_default();
        let start = self
            .start
            .map(|d| d.display_year())
            .unwrap_or_else(|| "?".into());
        format!("{start}–{}", show(self.end))
    }
}

/// One end of a JMnedict range: `1543.1.31`, `1219?`, `?`, `19?.?.?`.
const END_PATTERN: &str = r"(\?|\d{1,4}\??(?:\.(?:\d{1,2}|\?)){0,2})";

static RANGE: LazyLock<Regex> = LazyLock::new(|| {
    let pattern = format!(
        r"(c\.\s*|ca\.\s*)?(BCE\s*)?{END_PATTERN}\s*(BCE|CE)?\s*-\s*{END_PATTERN}?\s*(BCE|CE)?"
    );
    // The pattern is a constant; a failure here is a programming error caught by tests.
    Regex::new(&pattern).expect("range pattern compiles")
});

/// Finds the first date range in a text and parses both ends. A two-digit end after a
/// four-digit start (`1251-84`) shares the start's century.
pub fn parse_range(text: &str) -> Option<Span> {
    let captures = RANGE.captures(text)?;
    let approximate = captures.get(1).is_some();
    let leading_bce = captures.get(2).is_some();
    let start_text = captures.get(3)?.as_str();
    let end_text = captures.get(5).map(|m| m.as_str());
    let start_era = captures.get(4).map(|m| m.as_str());
    let end_era = captures.get(6).map(|m| m.as_str());
    let start_bce =
        leading_bce || start_era == Some("BCE") || (start_era.is_none() && end_era == Some("BCE"));
    let end_bce = end_era == Some("BCE");
    let start = parse_end(start_text, start_bce, approximate);
    let mut end = end_text.and_then(|text| parse_end(text, end_bce, false));
    if let (Some(first), Some(last), Some(raw)) = (start, end.as_mut(), end_text) {
        widen_short_year(first, last, raw);
    }
    if start.is_none() && end.is_none() {
        return None;
    }
    // An end before the start is a slip in the source (`1918-1879`, `1783-182`): no
    // dates are better than wrong ones.
    if let (Some(first), Some(last)) = (start, end)
        && last.key() < first.key()
    {
        return None;
    }
    Some(Span { start, end })
}

/// A short end shares the start's leading digits (`1251-84` is 1251–1284, `1837-864`
/// is 1837–1864) when that puts it within a century after the start.
fn widen_short_year(start: Date, end: &mut Date, raw: &str) {
    const LIFETIME_YEARS_MAX: i32 = 100;
    // One digit counts as two: `1967-2-17-` (a birth date written with dashes) must not
    // become a lifespan of five years.
    let modulus = match raw.bytes().take_while(u8::is_ascii_digit).count() {
        1 | 2 => 100,
        3 => 1_000,
        _ => return,
    };
    if start.year < modulus || end.year >= modulus {
        return;
    }
    let mut widened = start.year - start.year % modulus + end.year;
    if widened < start.year {
        widened += modulus;
    }
    if widened - start.year <= LIFETIME_YEARS_MAX {
        end.year = widened;
    }
}

fn parse_end(text: &str, bce: bool, approximate: bool) -> Option<Date> {
    let mut parts = text.split('.');
    let year_text = parts.next()?;
    let uncertain = year_text.ends_with('?');
    let year: i32 = year_text.trim_end_matches('?').parse().ok()?;
    if year_text.trim_end_matches('?').len() < 3 && !bce && text.contains('?') {
        // `19?.?.?`: only the century is known; not a usable date.
        return None;
    }
    let month = parts
        .next()
        .and_then(|m| m.parse::<u8>().ok())
        .filter(|m| (1..=12).contains(m));
    let day = parts
        .next()
        .and_then(|d| d.parse::<u8>().ok())
        .filter(|d| (1..=31).contains(d));
    let year = if bce { 1 - year } else { year };
    Some(Date {
        year,
        month,
        day: month.and(day),
        approximate: approximate || uncertain,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_day_dates() {
        let span = parse_range("Tokugawa Ieyasu (1543.1.31-1616.6.1), Shougun 1603-1605").unwrap();
        assert_eq!(span.start, Some(Date::day(1543, 1, 31)));
        assert_eq!(span.end, Some(Date::day(1616, 6, 1)));
        assert_eq!(span.start.unwrap().to_schema().value, "1543-01-31");
    }

    #[test]
    fn parses_open_uncertain_and_short_ranges() {
        let living = parse_range("Aika Shun (1984.12.8-)").unwrap();
        assert_eq!(living.end, None);
        let unknown_birth = parse_range("Nogi Toshiko (?-1896.12.27)").unwrap();
        assert_eq!(unknown_birth.start, None);
        assert_eq!(unknown_birth.end, Some(Date::day(1896, 12, 27)));
        let short = parse_range("Houjou Tokimune (1251-84)").unwrap();
        assert_eq!(short.end, Some(Date::year(1284)));
        let guessed = parse_range("Shinran (1173?-1262)").unwrap();
        assert!(guessed.start.unwrap().approximate);
    }

    #[test]
    fn parses_bce_and_ce_markers() {
        let span = parse_range("Ashoka (304-232 BCE)").unwrap();
        assert_eq!(span.start.unwrap().year, -303);
        assert_eq!(span.end.unwrap().display_year(), "232 BCE");
        let reign =
            parse_range("Go-Momozono Tenno (1758-1779 CE, reigning: 1770-1779 CE)").unwrap();
        assert_eq!(reign.years(), Some((1758, 1779)));
    }

    #[test]
    fn short_ends_share_the_start_s_digits_within_a_century() {
        let three = parse_range("Irie Kuichi (1837-864)").unwrap();
        assert_eq!(three.years(), Some((1837, 1864)));
        let dashed_birth_date = parse_range("Okui Kaori (1967-2-17-)").unwrap();
        assert_eq!(dashed_birth_date.years(), Some((1967, 2002)));
        let across = parse_range("(1299-01)").unwrap();
        assert_eq!(across.years(), Some((1299, 1301)));
        let own_digits = parse_range("(800-850)").unwrap();
        assert_eq!(own_digits.years(), Some((800, 850)));
    }

    #[test]
    fn ranges_that_end_before_they_start_are_dropped() {
        assert_eq!(parse_range("Fukunaga Takehiko (1918-1879)"), None);
        assert_eq!(parse_range("Ryuutei Tanehiko (1783-182)"), None);
        assert_eq!(parse_range("(1543.6.1-1543.1.31)"), None);
    }

    #[test]
    fn century_only_dates_are_not_dates() {
        let span = parse_range("Miyama Kisaburou (1873.6.4-19?.?.?)").unwrap();
        assert_eq!(span.end, None);
    }
}
