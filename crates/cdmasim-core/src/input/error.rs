//! The one error type of scenario loading: where (file, line, dotted field)
//! and what. Its Display is the single line the CLI prints.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file as the user named it ("<string>" for text without a file).
    pub file: String,
    /// 1-based line of the offending value, key or table; 0 when the error
    /// concerns the file as a whole (e.g. it cannot be read).
    pub line: usize,
    /// Dotted path of the field, e.g. `link[2].rate`; empty when there is none
    /// (TOML syntax errors, unreadable file).
    pub field: String,
    pub message: String,
}

impl ScenarioError {
    /// An error of the file as a whole (no line, no field).
    pub fn of_file(file: &str, message: impl Into<String>) -> Self {
        ScenarioError { file: file.to_string(), line: 0, field: String::new(), message: message.into() }
    }
}

impl fmt::Display for ScenarioError {
    /// `FILE:LINE: FIELD: message`, leaving out the parts that are absent.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
        }
        if !self.field.is_empty() {
            write!(f, ": {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ScenarioError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_one_line_with_all_parts() {
        let e = ScenarioError { file: "a.toml".into(), line: 7, field: "link[2].rate".into(), message: "must be positive".into() };
        assert_eq!(e.to_string(), "a.toml:7: link[2].rate: must be positive");
        let e = ScenarioError { file: "a.toml".into(), line: 0, field: String::new(), message: "cannot read".into() };
        assert_eq!(e.to_string(), "a.toml: cannot read");
    }
}
