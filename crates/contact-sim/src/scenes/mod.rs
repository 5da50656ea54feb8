//! Ready-made scenes, and the measurements that go with them.

mod box_heap;
mod box_pile;
mod box_stack;
mod planar_blocks;
mod seeded;
mod thrown_die;
mod wall_pyramid;

pub use box_heap::{BoxHeap, box_heap};
pub use box_pile::{BoxPile, box_pile};
pub use box_stack::{BoxStack, StackObservations, box_stack, run_box_stack};
pub use planar_blocks::{PlanarBlocks, planar_blocks};
pub use thrown_die::{ThrownDie, thrown_die};
pub use wall_pyramid::{WallPyramid, wall_pyramid};
