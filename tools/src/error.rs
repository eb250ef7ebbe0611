//! The errors of this crate: loading a corpus ([`CorpusError`]), setting up
//! the file tools ([`FileToolsError`]) and refusing a path ([`PathError`]),
//! each with a stable [`ErrorCode`] that tests and reports compare instead of
//! the message text.

use std::path::PathBuf;

/// A stable, machine-readable error code. Compare these, not Display text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// The corpus file could not be read.
    CorpusUnreadable,
    /// The corpus is not valid JSON, or not an array of passages.
    CorpusSyntax,
    /// A passage is well-formed JSON but invalid (bad or duplicate id).
    CorpusInvalid,
    /// The file tools' root is missing or not a directory.
    RootInvalid,
    /// A path contains a `..` component.
    PathParent,
    /// A path is absolute (or has a drive or UNC prefix).
    PathAbsolute,
    /// A path is empty or contains a NUL byte.
    PathMalformed,
    /// A path resolves (through a symlink) to somewhere outside the root.
    PathOutsideRoot,
    /// A path does not exist.
    PathNotFound,
    /// A path exists but is not a regular file.
    PathNotAFile,
    /// A file is binary (NUL bytes or not UTF-8).
    FileBinary,
    /// A file is larger than the tools will read.
    FileTooLarge,
    /// A file could not be read.
    FileUnreadable,
    /// No command sandbox can be made here (a program missing, user
    /// namespaces refused); nothing runs unsandboxed instead.
    SandboxUnavailable,
    /// The sandbox engine failed while running a command (it could not
    /// start, or set up its namespaces).
    SandboxFailed,
    /// A run's working copy could not be made.
    WorkingCopyFailed,
    /// A file could not be written (or its folder made).
    FileUnwritable,
    /// `apply_patch` was given text that is not a unified diff.
    PatchInvalid,
    /// A unified diff whose hunks do not match the file.
    PatchDoesNotApply,
}

impl ErrorCode {
    /// The code as a `snake_case` string, e.g. `"path_parent"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::CorpusUnreadable => "corpus_unreadable",
            ErrorCode::CorpusSyntax => "corpus_syntax",
            ErrorCode::CorpusInvalid => "corpus_invalid",
            ErrorCode::RootInvalid => "root_invalid",
            ErrorCode::PathParent => "path_parent",
            ErrorCode::PathAbsolute => "path_absolute",
            ErrorCode::PathMalformed => "path_malformed",
            ErrorCode::PathOutsideRoot => "path_outside_root",
            ErrorCode::PathNotFound => "path_not_found",
            ErrorCode::PathNotAFile => "path_not_a_file",
            ErrorCode::FileBinary => "file_binary",
            ErrorCode::FileTooLarge => "file_too_large",
            ErrorCode::FileUnreadable => "file_unreadable",
            ErrorCode::SandboxUnavailable => "sandbox_unavailable",
            ErrorCode::SandboxFailed => "sandbox_failed",
            ErrorCode::WorkingCopyFailed => "working_copy_failed",
            ErrorCode::FileUnwritable => "file_unwritable",
            ErrorCode::PatchInvalid => "patch_invalid",
            ErrorCode::PatchDoesNotApply => "patch_does_not_apply",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a corpus could not be loaded. Every variant names the source (a file
/// path or the name given to [`crate::Corpus::from_json_str`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CorpusError {
    /// The file could not be read.
    #[error("cannot read corpus {}: {source}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The text is not a JSON array of `{"id"?, "title", "text"}` objects.
    #[error("{source_name}:{line}:{column}: {message}")]
    Syntax {
        /// The file path or source name.
        source_name: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A passage is well-formed but invalid: an id that is not a string or
    /// number, an empty id, or an id used twice.
    #[error("{source_name}:{line}:{column}: {message}")]
    Invalid {
        /// The file path or source name.
        source_name: String,
        /// 1-based line of the passage's opening brace.
        line: usize,
        /// 1-based column of the passage's opening brace.
        column: usize,
        /// What is wrong.
        message: String,
    },
}

impl CorpusError {
    /// The stable code of this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            CorpusError::Unreadable { .. } => ErrorCode::CorpusUnreadable,
            CorpusError::Syntax { .. } => ErrorCode::CorpusSyntax,
            CorpusError::Invalid { .. } => ErrorCode::CorpusInvalid,
        }
    }
}

/// Why [`crate::FileTools`] could not be set up.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FileToolsError {
    /// The root does not exist or cannot be resolved.
    #[error("file tools root {}: {source}", path.display())]
    RootUnreadable {
        /// The root as given.
        path: PathBuf,
        /// The I/O error from resolving it.
        source: std::io::Error,
    },
    /// The root exists but is not a directory.
    #[error("file tools root {} is not a directory", path.display())]
    RootNotADirectory {
        /// The root as given.
        path: PathBuf,
    },
}

impl FileToolsError {
    /// The stable code of this error.
    pub fn code(&self) -> ErrorCode {
        ErrorCode::RootInvalid
    }
}

/// Why a command could not be run in a sandbox. Its Display text starts
/// with the code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct SandboxError {
    /// The stable code: [`ErrorCode::SandboxUnavailable`],
    /// [`ErrorCode::SandboxFailed`] or [`ErrorCode::WorkingCopyFailed`].
    pub code: ErrorCode,
    /// What went wrong.
    pub message: String,
}

impl SandboxError {
    /// An error with its code.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        SandboxError {
            code,
            message: message.into(),
        }
    }

    /// The stable code of this error.
    pub fn code(&self) -> ErrorCode {
        self.code
    }
}

/// Why a file tool refused a path or a file. Its Display text is what the
/// model reads; it starts with the code and says what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct PathError {
    /// The stable code.
    pub code: ErrorCode,
    /// The explanation for the model.
    pub message: String,
}

impl PathError {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        PathError {
            code,
            message: message.into(),
        }
    }

    /// The stable code of this error.
    pub fn code(&self) -> ErrorCode {
        self.code
    }
}

impl From<PathError> for tribunal_runtime::ToolError {
    fn from(e: PathError) -> Self {
        tribunal_runtime::ToolError::new(e.to_string())
    }
}
