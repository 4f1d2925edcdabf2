//! [`TagExprError`]: what is wrong with a `--where` expression, and where.

/// What is wrong with a tag expression, and where (`column`: 1-based, in characters).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TagExprError {
    /// No tag name before the operator (or an empty expression).
    #[error("expected a tag name at column {column}")]
    EmptyTagName {
        /// Where the name should be.
        column: usize,
    },
    /// A character that PGN does not allow in a tag name.
    #[error("{found:?} at column {column} cannot be part of a tag name (letters, digits, _ + # : -)")]
    BadTagName {
        /// Where it is.
        column: usize,
        /// The character.
        found: char,
    },
    /// The expression ends after the tag name.
    #[error("expected an operator (= != < <= > >= ~ =~) at column {column}")]
    MissingOperator {
        /// Where the operator should be.
        column: usize,
    },
    /// Something other than an operator after the tag name.
    #[error("unknown operator {found:?} at column {column} (operators: = != < <= > >= ~ =~)")]
    UnknownOperator {
        /// Where it starts.
        column: usize,
        /// What is written there.
        found: String,
    },
    /// Nothing after the operator (`""` is the empty value).
    #[error("expected a value at column {column} (write \"\" for the empty value)")]
    MissingValue {
        /// Where the value should be.
        column: usize,
    },
    /// A quoted value without its closing quote.
    #[error("unterminated quote: the value opened at column {column} has no closing '\"'")]
    UnterminatedQuote {
        /// Where the opening quote is.
        column: usize,
    },
    /// Text after a quoted value.
    #[error("unexpected text after the quoted value at column {column}")]
    TrailingText {
        /// Where the text starts.
        column: usize,
    },
    /// An ordering operator on a tag whose values are numbers, with an operand that is not one:
    /// it would hold for no game.
    #[error("{tag} holds numbers: {op} compares it with a number, not {found:?} (column {column})")]
    NotANumber {
        /// Where the value starts.
        column: usize,
        /// The tag or pseudo-tag.
        tag: String,
        /// The operator, as written.
        op: &'static str,
        /// The value, unquoted.
        found: String,
    },
    /// A date in the standard's form that names no day: no tag's date can be compared with it
    /// (a tag's such date is read with its impossible parts unknown).
    #[error("{found:?} at column {column} names no day: {why} (`~` finds the text as written)")]
    NoDay {
        /// Where the value starts.
        column: usize,
        /// The value, unquoted.
        found: String,
        /// Why, as [`crate::pgn::date::TagDate::impossible`] says.
        why: String,
    },
    /// The value of `=~` is not a valid regular expression.
    #[error("bad regular expression at column {column}: {message}")]
    BadRegex {
        /// Where the value starts.
        column: usize,
        /// The regex crate's message.
        message: String,
    },
}
