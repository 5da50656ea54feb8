//! From a point cloud to a polytope with polygonal faces.
//!
//! 1. Validate the cloud (finite, 4 points spanning a solid).
//! 2. Triangulated hull by parry's quickhull (`try_convex_hull`).
//! 3. Merge adjacent hull triangles that are coplanar within a relative
//!    tolerance (union-find over shared edges); each group's boundary,
//!    chained from the triangles' counter-clockwise directed edges that have
//!    no twin in the group, is the face loop (counter-clockwise seen from
//!    outside, as the triangles are).
//! 4. Drop vertices that are collinear with their loop neighbours in every
//!    face they belong to (points on a hull edge) and vertices no loop uses.
//! 5. Face planes by Newell's method, offset the largest `n . v` over the
//!    loop; edges from directed-edge twins; vertex adjacency in CSR form.
//!
//! Every step checks what the next one relies on (manifold edges, Euler's
//! `V - E + F = 2`, every vertex inside every face plane) and reports a
//! typed error instead of building a broken polytope.

use std::collections::HashMap;

use glam::{DMat3, DVec3};

use super::{ConvexPolytope, Edge, FacePlane, GaussMap};
use crate::GeometryError;
use crate::polygon::distance_to_segment;

/// Relative (to the cloud's extent) distance below which points count as
/// coplanar, collinear or coincident.
const TOLERANCE: f64 = 1e-9;

pub(super) fn build(points: &[DVec3]) -> Result<ConvexPolytope, GeometryError> {
    let scale = validate(points)?;
    let tol = TOLERANCE * scale;
    // The hull of an affine image is the image of the hull, so the hull is
    // computed on the whitened cloud (unit covariance): parry's quickhull
    // returns non-convex hulls for thin clouds (a 1 x 1 x 1e-4 slab) but
    // not for round ones. Its vertices are then mapped back to the input.
    let whitened = whiten(points);
    let (white_hull, triangles) =
        parry3d_f64::transformation::try_convex_hull(&whitened).map_err(|_| {
            GeometryError::InvalidHull {
                problem: "the convex hull algorithm failed",
            }
        })?;
    let mut input_of: HashMap<[u64; 3], usize> = HashMap::with_capacity(points.len());
    for (i, p) in whitened.iter().enumerate().rev() {
        input_of.insert(p.to_array().map(f64::to_bits), i);
    }
    let mut hull_points = Vec::with_capacity(white_hull.len());
    for p in &white_hull {
        let Some(&i) = input_of.get(&p.to_array().map(f64::to_bits)) else {
            return Err(GeometryError::InvalidHull {
                problem: "a hull vertex is not an input point",
            });
        };
        hull_points.push(points[i]);
    }
    if triangles.len() < 4 {
        return Err(GeometryError::InvalidHull {
            problem: "fewer than 4 hull triangles",
        });
    }
    let groups = merge_coplanar(&hull_points, &triangles, scale)?;
    let mut loops = Vec::with_capacity(groups.len());
    for group in &groups {
        let l = boundary_loop(&triangles, group)?;
        if group.len() > 1 && !is_convex(&hull_points, &l, scale) {
            // Nearly flat but not a convex polygon (triangles within the
            // tolerance of a plane need not make one): keep the triangles.
            loops.extend(group.iter().map(|&t| triangles[t].to_vec()));
        } else {
            loops.push(l);
        }
    }
    drop_collinear(&hull_points, &mut loops, tol);

    // Keep used vertices, in the order of the input points they come from.
    let mut origin: HashMap<[u64; 3], usize> = HashMap::with_capacity(points.len());
    for (i, p) in points.iter().enumerate().rev() {
        origin.insert(p.to_array().map(f64::to_bits), i);
    }
    let mut used: Vec<(usize, u32)> = Vec::new();
    let mut is_used = vec![false; hull_points.len()];
    for &v in loops.iter().flatten() {
        if !is_used[v as usize] {
            is_used[v as usize] = true;
            let key = hull_points[v as usize].to_array().map(f64::to_bits);
            used.push((origin.get(&key).copied().unwrap_or(usize::MAX), v));
        }
    }
    used.sort_unstable();
    let mut new_id = vec![u32::MAX; hull_points.len()];
    let vertices: Vec<DVec3> = used
        .iter()
        .enumerate()
        .map(|(k, &(_, v))| {
            new_id[v as usize] = k as u32;
            hull_points[v as usize]
        })
        .collect();
    for l in &mut loops {
        for v in l.iter_mut() {
            *v = new_id[*v as usize];
        }
    }
    assemble(vertices, &loops, scale)
}

/// The cloud mapped to zero mean and unit covariance (`y = L' (x - mean)`
/// with `L L'` the inverse covariance); the cloud itself if its covariance
/// is singular to working precision.
fn whiten(points: &[DVec3]) -> Vec<DVec3> {
    let n = points.len() as f64;
    let mean = points.iter().copied().sum::<DVec3>() / n;
    let covariance = points.iter().fold(DMat3::ZERO, |c, &p| {
        let d = p - mean;
        c + DMat3::from_cols(d * d.x, d * d.y, d * d.z)
    }) * (1.0 / n);
    let Ok(eigen) = contact_math::symmetric_eigen(covariance) else {
        return points.to_vec();
    };
    let [l0, l1, l2] = eigen.values;
    if !(l0 > 1e-24 * l2 && l2.is_finite()) {
        return points.to_vec();
    }
    let scale = DVec3::new(l0, l1, l2).map(|l| 1.0 / l.sqrt());
    let mut to_white = DMat3::from_diagonal(scale) * eigen.vectors.transpose();
    // A reflection would turn parry's counter-clockwise triangles around.
    if to_white.determinant() < 0.0 {
        to_white = -to_white;
    }
    points.iter().map(|&p| to_white * (p - mean)).collect()
}

/// Checks the cloud and returns its extent (largest distance from the
/// first point).
fn validate(points: &[DVec3]) -> Result<f64, GeometryError> {
    let count = points.len();
    if let Some(index) = points.iter().position(|p| !p.is_finite()) {
        return Err(GeometryError::NonFinitePoint { index });
    }
    let degenerate = |problem| GeometryError::DegeneratePointCloud { problem, count };
    if count < 4 {
        return Err(degenerate("fewer than 4 points"));
    }
    let p0 = points[0];
    let farthest = |f: &dyn Fn(DVec3) -> f64| {
        points
            .iter()
            .map(|&p| (f(p), p))
            .fold((0.0, p0), |best, x| if x.0 > best.0 { x } else { best })
    };
    let (scale, p1) = farthest(&|p| (p - p0).length());
    if !scale.is_finite() {
        return Err(degenerate("coordinates too large to subtract"));
    }
    if scale <= 0.0 {
        return Err(degenerate("all points coincide"));
    }
    let tol = TOLERANCE * scale;
    let axis = (p1 - p0) / scale;
    let (off_line, p2) = farthest(&|p| (p - p0).reject_from_normalized(axis).length());
    if off_line <= tol {
        return Err(degenerate("all points are collinear"));
    }
    let normal = axis.cross(p2 - p0).normalize();
    let (off_plane, _) = farthest(&|p| normal.dot(p - p0).abs());
    if off_plane <= tol {
        return Err(degenerate("all points are coplanar"));
    }
    Ok(scale)
}

/// Groups of triangle indices, one group per face.
fn merge_coplanar(
    points: &[DVec3],
    triangles: &[[u32; 3]],
    scale: f64,
) -> Result<Vec<Vec<usize>>, GeometryError> {
    let tol = TOLERANCE * scale;
    let mut directed: HashMap<(u32, u32), usize> = HashMap::with_capacity(3 * triangles.len());
    for (t, tri) in triangles.iter().enumerate() {
        for k in 0..3 {
            if directed.insert((tri[k], tri[(k + 1) % 3]), t).is_some() {
                return Err(GeometryError::InvalidHull {
                    problem: "a directed hull edge appears twice",
                });
            }
        }
    }
    let corner = |t: usize, k: usize| points[triangles[t][k] as usize];
    let plane = |t: usize| {
        // Edges scaled to the cloud's size, so the cross product neither
        // overflows nor underflows.
        let (e1, e2) = (corner(t, 1) - corner(t, 0), corner(t, 2) - corner(t, 0));
        let n = (e1 / scale).cross(e2 / scale);
        (n.normalize_or_zero(), corner(t, 0))
    };
    // Neighbours across each edge (every hull edge has two triangles).
    let mut neighbours = vec![[0usize; 3]; triangles.len()];
    for (t, tri) in triangles.iter().enumerate() {
        for k in 0..3 {
            let Some(&u) = directed.get(&(tri[(k + 1) % 3], tri[k])) else {
                return Err(GeometryError::InvalidHull {
                    problem: "a hull edge has only one triangle",
                });
            };
            neighbours[t][k] = u;
        }
    }
    // Region growing from seed triangles, each neighbour tested against
    // the seed's plane (not its neighbour's, so nearly flat regions cannot
    // drift into one face). Slivers of zero area never seed a group; they
    // join the first group whose plane holds their corners.
    let mut group_of = vec![usize::MAX; triangles.len()];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut stack = Vec::new();
    for pass in 0..2 {
        for seed in 0..triangles.len() {
            let (n, p) = plane(seed);
            if group_of[seed] != usize::MAX || (pass == 0 && n == DVec3::ZERO) {
                continue;
            }
            let g = groups.len();
            groups.push(vec![seed]);
            group_of[seed] = g;
            stack.push(seed);
            while let Some(t) = stack.pop() {
                for &u in &neighbours[t] {
                    let (nu, _) = plane(u);
                    let coplanar = (0..3).all(|k| n.dot(corner(u, k) - p).abs() <= tol)
                        && (nu == DVec3::ZERO || nu.dot(n) > 0.0);
                    if group_of[u] == usize::MAX && n != DVec3::ZERO && coplanar {
                        group_of[u] = g;
                        groups[g].push(u);
                        stack.push(u);
                    }
                }
            }
        }
    }
    Ok(groups)
}

/// The boundary of a group of triangles as one closed vertex loop.
fn boundary_loop(triangles: &[[u32; 3]], group: &[usize]) -> Result<Vec<u32>, GeometryError> {
    let inside: std::collections::HashSet<(u32, u32)> = group
        .iter()
        .flat_map(|&t| (0..3).map(move |k| (triangles[t][k], triangles[t][(k + 1) % 3])))
        .collect();
    let mut next: HashMap<u32, u32> = HashMap::new();
    let mut first = None;
    for &t in group {
        for k in 0..3 {
            let (a, b) = (triangles[t][k], triangles[t][(k + 1) % 3]);
            if !inside.contains(&(b, a)) {
                if next.insert(a, b).is_some() {
                    return Err(GeometryError::InvalidHull {
                        problem: "a merged face is not a simple polygon",
                    });
                }
                first.get_or_insert(a);
            }
        }
    }
    let not_simple = GeometryError::InvalidHull {
        problem: "a merged face is not a simple polygon",
    };
    let start = first.ok_or(not_simple.clone())?;
    let mut loop_ = vec![start];
    let mut v = *next.get(&start).ok_or(not_simple.clone())?;
    while v != start {
        if loop_.len() > next.len() {
            return Err(not_simple);
        }
        loop_.push(v);
        v = *next.get(&v).ok_or(not_simple.clone())?;
    }
    if loop_.len() != next.len() || loop_.len() < 3 {
        return Err(not_simple);
    }
    Ok(loop_)
}

/// Whether no corner of the loop lies more than the tolerance inside the
/// chord joining its neighbours (about the loop's Newell normal).
fn is_convex(points: &[DVec3], l: &[u32], scale: f64) -> bool {
    let n = l.len();
    let scaled = |k: usize| (points[l[k % n] as usize] - points[l[0] as usize]) / scale;
    let normal = (1..n)
        .map(|k| scaled(k).cross(scaled(k + 1)))
        .sum::<DVec3>()
        .normalize_or_zero();
    (0..n).all(|k| {
        let (a, b, c) = (scaled(k), scaled(k + 1), scaled(k + 2));
        let chord = (c - a).length();
        chord > 0.0 && (c - a).cross(b - a).dot(normal) <= TOLERANCE * chord
    })
}

/// Removes vertices that lie on the segment joining their loop neighbours
/// in every loop containing them.
fn drop_collinear(points: &[DVec3], loops: &mut [Vec<u32>], tol: f64) {
    let mut occurrences = vec![0usize; points.len()];
    let mut collinear = vec![0usize; points.len()];
    for l in loops.iter() {
        let n = l.len();
        for k in 0..n {
            let (prev, here, next) = (l[(k + n - 1) % n], l[k], l[(k + 1) % n]);
            occurrences[here as usize] += 1;
            let (a, p, b) = (
                points[prev as usize],
                points[here as usize],
                points[next as usize],
            );
            if distance_to_segment(p, a, b) <= tol {
                collinear[here as usize] += 1;
            }
        }
    }
    for l in loops.iter_mut() {
        l.retain(|&v| collinear[v as usize] < occurrences[v as usize]);
    }
}

/// Planes, edges and adjacency from the vertices and face loops.
fn assemble(
    vertices: Vec<DVec3>,
    loops: &[Vec<u32>],
    scale: f64,
) -> Result<ConvexPolytope, GeometryError> {
    let tol = TOLERANCE * scale;
    let invalid = |problem| GeometryError::InvalidHull { problem };
    if loops.iter().any(|l| l.len() < 3) {
        return Err(invalid("a face has fewer than 3 corners"));
    }
    let mut planes = Vec::with_capacity(loops.len());
    for l in loops {
        // Newell's method: the loop's area vector, about the first corner
        // and in units of the cloud's size (no cancellation, no overflow).
        let origin = vertices[l[0] as usize];
        let scaled = |k: usize| (vertices[l[k % l.len()] as usize] - origin) / scale;
        let mut n = DVec3::ZERO;
        for k in 1..l.len() {
            n += scaled(k).cross(scaled(k + 1));
        }
        let normal = n.try_normalize().ok_or(invalid("a face has zero area"))?;
        let offset = l
            .iter()
            .map(|&v| normal.dot(vertices[v as usize]))
            .fold(f64::NEG_INFINITY, f64::max);
        planes.push(FacePlane { normal, offset });
    }
    for plane in &planes {
        if vertices
            .iter()
            .any(|&v| plane.normal.dot(v) > plane.offset + tol)
        {
            return Err(invalid("a vertex lies outside a face plane"));
        }
    }

    let mut face_start = vec![0u32];
    let mut face_vertices = Vec::new();
    let mut face_edges = Vec::new();
    let mut edges: Vec<Edge> = Vec::new();
    let mut edge_of: HashMap<(u32, u32), usize> = HashMap::new();
    for (f, l) in loops.iter().enumerate() {
        for k in 0..l.len() {
            let (a, b) = (l[k], l[(k + 1) % l.len()]);
            let key = (a.min(b), a.max(b));
            let side = usize::from(a > b);
            let e = *edge_of.entry(key).or_insert_with(|| {
                edges.push(Edge {
                    vertices: [key.0, key.1],
                    faces: [u32::MAX; 2],
                });
                edges.len() - 1
            });
            if edges[e].faces[side] != u32::MAX {
                return Err(invalid("an edge is used twice in the same direction"));
            }
            edges[e].faces[side] = f as u32;
            face_vertices.push(a);
            face_edges.push(e as u32);
        }
        face_start.push(face_vertices.len() as u32);
    }
    if edges.iter().any(|e| e.faces.contains(&u32::MAX)) {
        return Err(invalid("an edge has only one face"));
    }
    let (v, e, f) = (vertices.len(), edges.len(), loops.len());
    if v + f != e + 2 {
        return Err(invalid("Euler's formula V - E + F = 2 fails"));
    }

    let csr = |lists: Vec<Vec<u32>>| {
        let mut start = vec![0u32];
        let mut flat = Vec::new();
        for mut list in lists {
            list.sort_unstable();
            list.dedup();
            flat.extend(list);
            start.push(flat.len() as u32);
        }
        (start, flat)
    };
    let mut by_vertex_faces = vec![Vec::new(); v];
    for (f, l) in loops.iter().enumerate() {
        for &x in l {
            by_vertex_faces[x as usize].push(f as u32);
        }
    }
    let mut by_vertex_edges = vec![Vec::new(); v];
    for (k, edge) in edges.iter().enumerate() {
        for x in edge.vertices {
            by_vertex_edges[x as usize].push(k as u32);
        }
    }
    let (vertex_face_start, vertex_faces) = csr(by_vertex_faces);
    let (vertex_edge_start, vertex_edges) = csr(by_vertex_edges);
    let interior = vertices.iter().copied().sum::<DVec3>() / v as f64;
    let bounding_radius = vertices.iter().map(|p| p.length()).fold(0.0, f64::max);
    let gauss_map = GaussMap::new(&planes, &edges);
    Ok(ConvexPolytope {
        vertices,
        planes,
        face_start,
        face_vertices,
        face_edges,
        edges,
        vertex_face_start,
        vertex_faces,
        vertex_edge_start,
        vertex_edges,
        interior,
        bounding_radius,
        gauss_map,
    })
}
