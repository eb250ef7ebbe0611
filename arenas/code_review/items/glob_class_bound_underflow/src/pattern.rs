//! Compile a glob-like pattern: `?`, `[abc]`, `[!abc]` and literal characters.

#[derive(Debug, PartialEq)]
pub enum Token {
    Char(char),
    AnyChar,
    AnyWithin(Vec<char>),
    AnyExcept(Vec<char>),
}

#[derive(Debug, PartialEq)]
pub struct PatternError {
    pub pos: usize,
    pub msg: &'static str,
}

const ERROR_INVALID_RANGE: &str = "invalid range pattern";

/// Compiles `pattern` into tokens; a malformed pattern is an error.
pub fn compile(pattern: &str) -> Result<Vec<Token>, PatternError> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '?' => {
                tokens.push(Token::AnyChar);
                i += 1;
            }
            '[' => {
                if i <= chars.len() - 4 && chars[i + 1] == '!' {
                    if let Some(j) = chars[i + 3..].iter().position(|&c| c == ']') {
                        tokens.push(Token::AnyExcept(chars[i + 2..i + 3 + j].to_vec()));
                        i += j + 4;
                        continue;
                    }
                } else if i + 3 <= chars.len() && chars[i + 1] != '!' {
                    if let Some(j) = chars[i + 2..].iter().position(|&c| c == ']') {
                        tokens.push(Token::AnyWithin(chars[i + 1..i + 2 + j].to_vec()));
                        i += j + 3;
                        continue;
                    }
                }
                // if we get here then this is not a valid range pattern
                return Err(PatternError { pos: i, msg: ERROR_INVALID_RANGE });
            }
            c => {
                tokens.push(Token::Char(c));
                i += 1;
            }
        }
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        let t = compile("a[bc]").unwrap();
        assert_eq!(t, vec![Token::Char('a'), Token::AnyWithin(vec!['b', 'c'])]);
        let t = compile("[!x]y?").unwrap();
        assert_eq!(t, vec![Token::AnyExcept(vec!['x']), Token::Char('y'), Token::AnyChar]);
    }

    #[test]
    fn unterminated_class_is_an_error() {
        assert!(compile("ab[cd").is_err());
        assert!(compile("ab[!cd").is_err());
    }
}
