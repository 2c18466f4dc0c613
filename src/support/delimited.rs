//! Tokens between delimiters in a text (`{rtt_ms}` figures, `[[world.vs_server]]` controls):
//! one scanner for every kind of token a lesson text carries.

/// `text` with each `open…close` token replaced by what `say` makes of its inside; a token
/// `say` does not know (`None`) is left as written, and the scan goes on after its opening.
pub fn replace(
    text: &str,
    open: &str,
    close: &str,
    mut say: impl FnMut(&str) -> Option<String>,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(open) {
        out.push_str(&rest[..i]);
        let after = &rest[i + open.len()..];
        match after
            .find(close)
            .and_then(|j| say(&after[..j]).map(|said| (j, said)))
        {
            Some((j, said)) => {
                out.push_str(&said);
                rest = &after[j + close.len()..];
            }
            None => {
                out.push_str(open);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The insides of the `open…close` tokens of `text`, in order (an opening without a close
/// ends the scan).
pub fn tokens<'a>(text: &'a str, open: &'a str, close: &'a str) -> impl Iterator<Item = &'a str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let i = rest.find(open)?;
        let after = &rest[i + open.len()..];
        let j = after.find(close)?;
        rest = &after[j + close.len()..];
        Some(&after[..j])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_tokens_are_replaced_and_the_rest_left_as_written() {
        let said = replace("a {x} b {y} {", "{", "}", |t| {
            (t == "x").then(|| "X".into())
        });
        assert_eq!(said, "a X b {y} {");
        let said = replace("[[a]] and [[b]]", "[[", "]]", |t| Some(t.to_uppercase()));
        assert_eq!(said, "A and B");
        assert_eq!(
            tokens("{a} {b} {c", "{", "}").collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert_eq!(tokens("[[x]]]]", "[[", "]]").collect::<Vec<_>>(), ["x"]);
    }
}
