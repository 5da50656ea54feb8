//! Ready-made scenes, and the measurements that go with them.

mod box_stack;

pub use box_stack::{BoxStack, StackObservations, box_stack, run_box_stack};
