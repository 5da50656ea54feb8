//! A faer scratch stack kept between solves (so a repeated solve allocates
//! nothing), with the `Debug`, `Clone` and `Default` `MemBuffer` lacks.

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};

/// A reusable faer scratch buffer.
pub(crate) struct FaerScratch {
    buffer: MemBuffer,
    /// Bytes the buffer was made for.
    bytes: usize,
}

impl FaerScratch {
    /// A stack of at least `req` bytes, growing the buffer (the only
    /// allocation) when it is smaller.
    pub(crate) fn stack(&mut self, req: StackReq) -> &mut MemStack {
        let bytes = req.unaligned_bytes_required();
        if bytes > self.bytes {
            self.buffer = MemBuffer::new(req);
            self.bytes = bytes;
        }
        MemStack::new(&mut self.buffer)
    }
}

impl Default for FaerScratch {
    fn default() -> Self {
        Self {
            buffer: MemBuffer::new(StackReq::EMPTY),
            bytes: 0,
        }
    }
}

impl Clone for FaerScratch {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for FaerScratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FaerScratch")
            .field("bytes", &self.bytes)
            .finish()
    }
}
