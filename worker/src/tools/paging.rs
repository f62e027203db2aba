//! Paging of list-shaped tools: the `limit`/`offset` window a call asks for
//! (checked against its toolset's `defaultLimit` and `maxLimit` options), the
//! header line every page begins with, and the window itself.

use super::{Context, ErrorKind, ToolError};

/// A window over a list: at most `limit` items from `offset` (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// How many items at most (0: only the count).
    pub limit: usize,
    /// How many items to skip.
    pub offset: usize,
}

/// The paging header line for `shown` items of a list of `total` (a lower
/// bound when `at_least`), named with `noun` (plural).
pub fn page_header(page: Page, shown: usize, total: usize, at_least: bool, noun: &str) -> String {
    let of = if at_least {
        format!("of at least {total}")
    } else {
        format!("of {total}")
    };
    if page.limit == 0 {
        return if at_least {
            format!("at least {total} {noun}")
        } else {
            format!("{total} {noun}")
        };
    }
    if shown == 0 {
        return if total == 0 {
            format!("no {noun}")
        } else {
            format!(
                "showing none {of} {noun}: offset {} is past the end",
                page.offset
            )
        };
    }
    let last = page.offset + shown;
    let mut line = format!("showing {}-{last} {of} {noun}", page.offset + 1);
    if last < total {
        line.push_str(&format!("; pass offset: {last} for the next page"));
    }
    line
}

/// Applies `page` to `items`, answering the window.
pub fn window<T: Clone>(items: &[T], page: Page) -> Vec<T> {
    items
        .iter()
        .skip(page.offset)
        .take(page.limit)
        .cloned()
        .collect()
}

impl Context<'_> {
    /// The `limit`/`offset` window of a list-shaped tool; a negative value is
    /// `invalidParams`. `limit` defaults to the toolset's `defaultLimit` option
    /// when it declares one, else to `default_limit`; a limit above the
    /// toolset's `maxLimit` is `invalidParams`.
    pub fn page(&self, default_limit: usize) -> Result<Page, ToolError> {
        let default_limit = self.count_option("defaultLimit").unwrap_or(default_limit);
        let read = |name: &str, default: usize| -> Result<usize, ToolError> {
            match self.args.get(name) {
                None => Ok(default),
                Some(v) => v
                    .as_u64()
                    .or_else(|| {
                        v.as_f64()
                            .filter(|f| *f >= 0.0 && f.fract() == 0.0)
                            .map(|f| f as u64)
                    })
                    .map(|n| n.min(usize::MAX as u64) as usize)
                    .ok_or_else(|| {
                        ToolError::new(
                            ErrorKind::InvalidParams,
                            format!("argument '{name}' must be a non-negative integer, not {v}"),
                        )
                    }),
            }
        };
        let page = Page {
            limit: read("limit", default_limit)?,
            offset: read("offset", 0)?,
        };
        if let Some(max) = self.count_option("maxLimit") {
            if page.limit > max {
                return Err(ToolError::new(
                    ErrorKind::InvalidParams,
                    format!(
                        "argument 'limit' is {}, above this server's maximum of {max} \
                         ({}.maxLimit): ask for at most {max} and page on with offset",
                        page.limit,
                        self.toolset.name()
                    ),
                ));
            }
        }
        Ok(page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paging_headers() {
        let p = |limit, offset| Page { limit, offset };
        // (page, shown, total, at least, expected header)
        let table = [
            (
                p(200, 0),
                200,
                1417,
                false,
                "showing 1-200 of 1417 classes; pass offset: 200 for the next page",
            ),
            (
                p(200, 1400),
                17,
                1417,
                false,
                "showing 1401-1417 of 1417 classes",
            ),
            (p(0, 0), 0, 1417, false, "1417 classes"),
            (p(0, 0), 0, 3, true, "at least 3 classes"),
            (p(5, 0), 0, 0, false, "no classes"),
            (
                p(5, 10),
                0,
                4,
                false,
                "showing none of 4 classes: offset 10 is past the end",
            ),
            (
                p(2, 0),
                2,
                3,
                true,
                "showing 1-2 of at least 3 classes; pass offset: 2 for the next page",
            ),
        ];
        for (page, shown, total, at_least, expected) in table {
            assert_eq!(
                page_header(page, shown, total, at_least, "classes"),
                expected
            );
        }
        assert_eq!(window(&[1, 2, 3, 4, 5], p(2, 3)), vec![4, 5]);
        assert_eq!(window(&[1, 2, 3], p(2, 7)), Vec::<i32>::new());
        assert_eq!(window(&[1, 2, 3], p(0, 0)), Vec::<i32>::new());
    }
}
