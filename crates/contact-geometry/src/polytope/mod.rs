//! Convex polytopes: vertices, polygonal faces with outward planes, edges,
//! and the adjacency between them.
//!
//! Built from a point cloud by parry's quickhull, whose triangles are then
//! merged into polygonal faces (`topology`), or from a box's half extents.
//! Mass properties by decomposition into tetrahedra are in `mass`.
//!
//! Numbering: vertices keep the order of the input points they come from
//! (points inside the hull, on an edge or inside a face are dropped); faces
//! and edges are numbered by construction and are stable for a given input.

mod gauss_map;
mod mass;
mod topology;

pub(crate) use gauss_map::GaussMap;

use glam::DVec3;

use crate::GeometryError;

/// The plane of a polytope face: `{ x : normal . x = offset }`, the solid
/// on the side `normal . x <= offset`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FacePlane {
    /// Outward unit normal (local frame).
    pub normal: DVec3,
    /// Offset of the plane along the normal (m).
    pub offset: f64,
}

/// An edge of a polytope: its two end vertices and the two faces it
/// separates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// End vertex ids, smaller first.
    pub vertices: [u32; 2],
    /// `faces[0]` runs the edge from `vertices[0]` to `vertices[1]` in its
    /// counter-clockwise loop, `faces[1]` the other way.
    pub faces: [u32; 2],
}

/// A convex polytope in its own local frame, with its full boundary
/// topology.
///
/// Invariants (checked at construction, "within tolerance" meaning 1e-9 of
/// the point cloud's extent): at least 4 vertices; every face a polygon,
/// convex and planar within tolerance, whose loop is counter-clockwise seen
/// from outside; every vertex on the inner side of every face plane within
/// tolerance; each edge shared by exactly two faces; `V - E + F = 2`.
/// Coplanar hull triangles are merged into one face only when the merged
/// polygon is convex within tolerance.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexPolytope {
    vertices: Vec<DVec3>,
    planes: Vec<FacePlane>,
    /// Face `f`'s loop is `face_vertices[face_start[f]..face_start[f + 1]]`.
    face_start: Vec<u32>,
    face_vertices: Vec<u32>,
    /// `face_edges[k]` joins `face_vertices[k]` to the next vertex of the loop.
    face_edges: Vec<u32>,
    edges: Vec<Edge>,
    vertex_face_start: Vec<u32>,
    vertex_faces: Vec<u32>,
    vertex_edge_start: Vec<u32>,
    vertex_edges: Vec<u32>,
    interior: DVec3,
    bounding_radius: f64,
    /// Bounding cones of the edges' Gauss-map arcs, for the SAT's pruning.
    gauss_map: GaussMap,
}

impl ConvexPolytope {
    /// The convex hull of `points` (local frame, m). Coplanar hull
    /// triangles are merged into one polygonal face and vertices lying on
    /// an edge or inside a face are dropped.
    ///
    /// # Errors
    /// [`GeometryError::NonFinitePoint`] for NaN or infinity;
    /// [`GeometryError::DegeneratePointCloud`] for fewer than 4 points, or
    /// points that all coincide or are collinear or coplanar (relative to
    /// the cloud's size, within 1e-9); [`GeometryError::InvalidHull`] if the
    /// hull cannot be made a valid polytope.
    pub fn from_points(points: &[DVec3]) -> Result<Self, GeometryError> {
        topology::build(points)
    }

    /// The box `[-h.x, h.x] x [-h.y, h.y] x [-h.z, h.z]`. Its vertices are
    /// numbered as a cuboid's (bit `i` of the id set when coordinate `i` is
    /// negative); its faces and edges are numbered by construction, not as
    /// a cuboid's.
    ///
    /// # Errors
    /// [`GeometryError::InvalidSize`] when a half extent is not positive
    /// and finite.
    pub fn from_box(half_extents: DVec3) -> Result<Self, GeometryError> {
        const NAMES: [&str; 3] = ["half_extents.x", "half_extents.y", "half_extents.z"];
        for (axis, name) in NAMES.iter().enumerate() {
            let value = half_extents[axis];
            if !(value.is_finite() && value > 0.0) {
                return Err(GeometryError::InvalidSize { what: name, value });
            }
        }
        let corners: Vec<DVec3> = (0..8u32)
            .map(|id| {
                let sign = |i: u32| if id & (1 << i) == 0 { 1.0 } else { -1.0 };
                DVec3::new(sign(0), sign(1), sign(2)) * half_extents
            })
            .collect();
        topology::build(&corners)
    }

    /// The vertices (local frame, m), indexed by vertex id.
    #[must_use]
    pub fn vertices(&self) -> &[DVec3] {
        &self.vertices
    }

    /// The face planes, indexed by face id.
    #[must_use]
    pub fn faces(&self) -> &[FacePlane] {
        &self.planes
    }

    /// The edges, indexed by edge id.
    #[must_use]
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// The vertex loop of face `face`, counter-clockwise seen from outside.
    ///
    /// # Panics
    /// When `face` is not a face id (`face >= faces().len()`).
    #[must_use]
    #[track_caller]
    pub fn face_vertices(&self, face: usize) -> &[u32] {
        let (s, e) = (self.face_start[face], self.face_start[face + 1]);
        &self.face_vertices[s as usize..e as usize]
    }

    /// The edges of face `face`: entry `k` joins `face_vertices(face)[k]`
    /// to the next vertex of the loop.
    ///
    /// # Panics
    /// When `face` is not a face id.
    #[must_use]
    #[track_caller]
    pub fn face_edges(&self, face: usize) -> &[u32] {
        let (s, e) = (self.face_start[face], self.face_start[face + 1]);
        &self.face_edges[s as usize..e as usize]
    }

    /// The faces having `vertex` as a corner (in increasing id order).
    ///
    /// # Panics
    /// When `vertex` is not a vertex id.
    #[must_use]
    #[track_caller]
    pub fn vertex_faces(&self, vertex: usize) -> &[u32] {
        let (s, e) = (
            self.vertex_face_start[vertex],
            self.vertex_face_start[vertex + 1],
        );
        &self.vertex_faces[s as usize..e as usize]
    }

    /// The edges ending at `vertex` (in increasing id order).
    ///
    /// # Panics
    /// When `vertex` is not a vertex id.
    #[must_use]
    #[track_caller]
    pub fn vertex_edges(&self, vertex: usize) -> &[u32] {
        let (s, e) = (
            self.vertex_edge_start[vertex],
            self.vertex_edge_start[vertex + 1],
        );
        &self.vertex_edges[s as usize..e as usize]
    }

    /// A point strictly inside the polytope (the mean of its vertices).
    #[must_use]
    pub fn interior_point(&self) -> DVec3 {
        self.interior
    }

    /// The radius of the smallest sphere about the local origin that
    /// contains the polytope (m).
    #[must_use]
    pub fn bounding_radius(&self) -> f64 {
        self.bounding_radius
    }

    /// The bounding cones of the edges' Gauss-map arcs.
    pub(crate) fn gauss_map(&self) -> &GaussMap {
        &self.gauss_map
    }

    /// Mass, centre of mass (local frame) and inertia about the centre of
    /// mass of the solid polytope with uniform `density` (kg/m^3).
    ///
    /// The body frame convention puts the centre of mass at the origin; a
    /// polytope built around another point reports its offset in
    /// `local_com`.
    ///
    /// # Errors
    /// [`GeometryError::InvalidDensity`] when `density` is not positive and
    /// finite; [`GeometryError::MassProperties`] if validation of the result
    /// fails (only for polytopes flat to working precision).
    pub fn mass_properties(
        &self,
        density: f64,
    ) -> Result<contact_math::MassProperties, GeometryError> {
        mass::mass_properties(self, density)
    }
}
