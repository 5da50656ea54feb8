//! What is wrong with a scene file: where (a JSON path) and which rule.

use std::fmt;
use std::path::PathBuf;

/// Why a scene file could not be read, parsed or built.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SceneError {
    /// The file could not be read.
    #[error("cannot read {}: {reason}", file.display())]
    Read {
        /// The file.
        file: PathBuf,
        /// What the operating system said.
        reason: String,
    },
    /// The text is not JSON.
    #[error("not valid JSON at line {line}, column {column}: {message}")]
    Syntax {
        /// Line of the error (1-based).
        line: usize,
        /// Column of the error (1-based).
        column: usize,
        /// What the parser expected.
        message: String,
    },
    /// A field breaks a rule: `bodies[3].shape.box.half_extents[1]: must be > 0`.
    #[error("{path}: {rule}")]
    Invalid {
        /// The JSON path of the field (`bodies[3].mass`), or `(file)` for the
        /// whole file.
        path: String,
        /// The rule it breaks.
        rule: String,
    },
}

impl SceneError {
    /// A field at `path` breaks `rule`.
    pub(crate) fn invalid(path: impl fmt::Display, rule: impl Into<String>) -> Self {
        let path = path.to_string();
        Self::Invalid {
            path: if path.is_empty() {
                "(file)".into()
            } else {
                path
            },
            rule: rule.into(),
        }
    }
}

/// A JSON path under construction: `bodies[3].shape`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct JsonPath(String);

impl JsonPath {
    /// The path of a top-level field.
    pub(crate) fn root(field: &str) -> Self {
        Self(field.to_string())
    }

    /// The path of a field of this object.
    pub(crate) fn field(&self, name: &str) -> Self {
        if self.0.is_empty() {
            Self(name.to_string())
        } else {
            Self(format!("{}.{name}", self.0))
        }
    }

    /// The path of an element of this array.
    pub(crate) fn index(&self, index: usize) -> Self {
        Self(format!("{}[{index}]", self.0))
    }

    /// `rule` broken here.
    pub(crate) fn error(&self, rule: impl Into<String>) -> SceneError {
        SceneError::invalid(&self.0, rule)
    }

    /// `value` if it is finite.
    pub(crate) fn finite(&self, value: f64) -> Result<f64, SceneError> {
        if value.is_finite() {
            Ok(value)
        } else {
            Err(self.error("must be a finite number"))
        }
    }

    /// `value` if it is finite and > 0.
    pub(crate) fn positive(&self, value: f64) -> Result<f64, SceneError> {
        if value.is_finite() && value > 0.0 {
            Ok(value)
        } else {
            Err(self.error("must be > 0"))
        }
    }

    /// `value` if it is finite and >= 0.
    pub(crate) fn non_negative(&self, value: f64) -> Result<f64, SceneError> {
        if value.is_finite() && value >= 0.0 {
            Ok(value)
        } else {
            Err(self.error("must be >= 0"))
        }
    }

    /// `value` if every component is finite (the path of the first that
    /// is not names it).
    pub(crate) fn finite_vector(&self, value: [f64; 3]) -> Result<glam::DVec3, SceneError> {
        for (i, x) in value.iter().enumerate() {
            self.index(i).finite(*x)?;
        }
        Ok(glam::DVec3::from_array(value))
    }

    /// `value` if it is finite with a length > 0.
    pub(crate) fn direction(&self, value: [f64; 3]) -> Result<glam::DVec3, SceneError> {
        let vector = self.finite_vector(value)?;
        if vector.length() > 0.0 && vector.length().is_finite() {
            Ok(vector)
        } else {
            Err(self.error("must be a nonzero vector"))
        }
    }
}

impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
