//! Output files that appear whole or not at all: written under a temporary
//! name beside the final one, renamed into place by [`AtomicFile::commit`],
//! removed if dropped before.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file being written under a temporary name.
#[derive(Debug)]
pub struct AtomicFile {
    target: PathBuf,
    temporary: PathBuf,
    out: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Creates the temporary file beside `target`
    /// (`.NAME.partial-PID` in the same folder, so the rename stays on one
    /// file system).
    ///
    /// # Errors
    /// The operating system's, when the folder does not exist or is not
    /// writable.
    pub fn create(target: &Path) -> io::Result<Self> {
        let name = target
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
        let temporary = target.with_file_name(format!(
            ".{}.partial-{}",
            name.to_string_lossy(),
            std::process::id()
        ));
        let file = File::create(&temporary)?;
        Ok(Self {
            target: target.to_path_buf(),
            temporary,
            out: Some(BufWriter::new(file)),
        })
    }

    /// Flushes the file and renames it to its final name.
    ///
    /// # Errors
    /// The operating system's; the temporary file is then removed.
    pub fn commit(mut self) -> io::Result<()> {
        if let Some(out) = self.out.take() {
            let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
            file.sync_all()?;
        }
        std::fs::rename(&self.temporary, &self.target)
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.out {
            Some(out) => out.write(buf),
            None => Err(io::Error::other("file already committed")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.out {
            Some(out) => out.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        // Not committed (or the rename failed): leave nothing behind.
        self.out = None;
        if self.temporary.exists() {
            let _ = std::fs::remove_file(&self.temporary);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_appears_only_when_committed() {
        let dir = std::env::temp_dir().join(format!("contact-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("out.json");
        let _ = std::fs::remove_file(&target);
        let mut file = AtomicFile::create(&target).unwrap();
        file.write_all(b"{}").unwrap();
        assert!(!target.exists());
        drop(file);
        assert!(!target.exists());
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            0,
            "temporary left"
        );
        let mut file = AtomicFile::create(&target).unwrap();
        file.write_all(b"{}").unwrap();
        file.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "{}");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(AtomicFile::create(&dir.join("missing/out.json")).is_err());
    }
}
