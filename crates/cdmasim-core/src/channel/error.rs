//! Errors of the channel layer: every one names the file, and the line and
//! field where there is one, so the CLI can print `FILE:LINE: FIELD: what`.

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub struct ChannelError {
    pub file: String,
    pub line: Option<u64>,
    pub field: Option<String>,
    pub msg: String,
}

impl ChannelError {
    pub fn new(file: impl Into<String>, msg: impl Into<String>) -> Self {
        Self { file: file.into(), line: None, field: None, msg: msg.into() }
    }
    pub fn at(file: impl Into<String>, line: u64, field: &str, msg: impl Into<String>) -> Self {
        Self { file: file.into(), line: Some(line), field: Some(field.to_string()), msg: msg.into() }
    }
    pub fn io(file: &str, e: std::io::Error) -> Self {
        Self::new(file, crate::files::reason(&e.to_string()))
    }
}

impl fmt::Display for ChannelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
        }
        if let Some(fd) = &self.field {
            write!(f, ": {fd}")?;
        }
        write!(f, ": {}", self.msg)
    }
}

impl std::error::Error for ChannelError {}

pub type Result<T> = std::result::Result<T, ChannelError>;
