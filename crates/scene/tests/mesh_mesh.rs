//! Mesh-mesh contacts against brute force: for meshes at random poses, the
//! contact is `Some` exactly when some pair of triangles touches, and its
//! depth is the largest triangle-triangle depth over all pairs (B brought
//! into A's frame by the same relative pose, so every pair's answer is the
//! same bits and the depths must be equal). Swapping A and B gives the same
//! depth (computed in the other mesh's frame: equal to f32 rounding), and the
//! contact pipeline reports exactly the brute-force pairs of a scene of
//! meshes.

use std::collections::BTreeSet;
use std::sync::Arc;

use nalgebra::Translation3;
use proxima_narrowphase::{contact_triangle_triangle, Aabb, Isometry, Point, Real, Triangle, Vector};
use proxima_scene::*;
use proxima_test_support::gen::{self, uniform};
use proxima_test_support::Rng;

/// A box surface, each face an `n x n` grid of quads (two triangles each).
fn box_mesh(h: Vector, n: usize) -> TriMesh {
    let (mut vertices, mut indices) = (Vec::new(), Vec::new());
    for k in 0..3 {
        let (u, v) = ((k + 1) % 3, (k + 2) % 3);
        for s in [-1.0, 1.0] {
            let base = vertices.len() as u32;
            for i in 0..=n {
                for j in 0..=n {
                    let mut p = Vector::zeros();
                    p[k] = s * h[k];
                    p[u] = h[u] * (2.0 * i as Real / n as Real - 1.0);
                    p[v] = h[v] * (2.0 * j as Real / n as Real - 1.0);
                    vertices.push(Point::from(p));
                }
            }
            quads(&mut indices, base, n, n);
        }
    }
    TriMesh::new(vertices, indices).expect("valid mesh")
}

/// Two triangles per cell of a `(rows + 1) x (cols + 1)` vertex grid
/// starting at index `base`.
fn quads(indices: &mut Vec<[u32; 3]>, base: u32, rows: usize, cols: usize) {
    let at = |i: usize, j: usize| base + (i * (cols + 1) + j) as u32;
    for i in 0..rows {
        for j in 0..cols {
            indices.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            indices.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
}

/// A latitude-longitude sphere; the rows at the poles are degenerate
/// triangles (two equal vertices).
fn sphere_mesh(r: Real, rings: usize, segments: usize) -> TriMesh {
    let mut vertices = Vec::new();
    for i in 0..=rings {
        let theta = std::f32::consts::PI * i as Real / rings as Real;
        for j in 0..=segments {
            let phi = 2.0 * std::f32::consts::PI * j as Real / segments as Real;
            vertices.push(Point::new(r * theta.sin() * phi.cos(), r * theta.sin() * phi.sin(), r * theta.cos()));
        }
    }
    let mut indices = Vec::new();
    quads(&mut indices, 0, rings, segments);
    TriMesh::new(vertices, indices).expect("valid mesh")
}

/// An open `n x n` grid of side `side` in the xy plane, heights random in
/// `[-bump, bump]`.
fn grid_mesh(n: usize, side: Real, bump: Real, rng: &mut impl Rng) -> TriMesh {
    let mut vertices = Vec::new();
    for i in 0..=n {
        for j in 0..=n {
            let (x, y) = (side * (i as Real / n as Real - 0.5), side * (j as Real / n as Real - 0.5));
            vertices.push(Point::new(x, y, uniform(rng, -bump, bump)));
        }
    }
    let mut indices = Vec::new();
    quads(&mut indices, 0, n, n);
    TriMesh::new(vertices, indices).expect("valid mesh")
}

#[cfg(feature = "obj")]
fn spot() -> TriMesh {
    TriMesh::from_obj(format!("{}/../../assets/meshes/spot.obj", env!("CARGO_MANIFEST_DIR"))).expect("spot loads")
}

/// A random pose: a uniform rotation and a translation in `[-spread, spread]^3`.
fn pose(rng: &mut impl Rng, spread: Real) -> Isometry {
    let t = Vector::from_fn(|_, _| uniform(rng, -spread, spread));
    Isometry::from_parts(Translation3::from(t), gen::rotation(rng))
}

fn triangle_under(t: &Triangle, iso: &Isometry) -> Triangle {
    let v = t.vertices().map(|p| iso.transform_point(&p));
    Triangle::new(v[0], v[1], v[2])
}

/// The deepest triangle-triangle depth over all pairs (`None`: no pair
/// touches), B in A's frame. Pairs whose boxes are apart by more than
/// `1e-4` of the coordinates are skipped: the triangle test's touching band
/// is below `2e-6` of them.
fn brute_force_depth(a: &TriMesh, pose_a: &Isometry, b: &TriMesh, pose_b: &Isometry) -> Option<Real> {
    let rel = pose_a.inv_mul(pose_b);
    let tb: Vec<Triangle> = b.triangles().collect::<Vec<_>>().iter().map(|t| triangle_under(t, &rel)).collect();
    let scale = a.local_aabb().corners().iter().map(|c| c.coords.amax()).fold(1.0, Real::max);
    let boxes: Vec<Aabb> = tb.iter().map(|t| t.aabb().loosened(1e-4 * scale)).collect();
    let mut best: Option<Real> = None;
    for ta in a.triangles() {
        let ba = ta.aabb();
        for (t, bb) in tb.iter().zip(&boxes) {
            let apart = (0..3).any(|k| ba.min()[k] > bb.max()[k] || bb.min()[k] > ba.max()[k]);
            if apart {
                continue;
            }
            if let Some(c) = contact_triangle_triangle(&ta, t) {
                best = Some(best.map_or(c.depth, |d| d.max(c.depth)));
            }
        }
    }
    best
}

fn world(mesh: &Arc<TriMesh>, pose: &Isometry) -> WorldShape {
    ColliderShape::TriMesh(Arc::clone(mesh)).placed(pose).expect("valid pose")
}

/// Runs `poses` random placements of B around A (A at a random pose too) and
/// checks each against brute force; returns how many touched.
fn check_pair(name: &str, a: &Arc<TriMesh>, b: &Arc<TriMesh>, spread: Real, poses: usize, seed: u64) -> usize {
    let mut rng = proxima_test_support::rng(seed);
    let mut hits = 0;
    for k in 0..poses {
        let pose_a = pose(&mut rng, 0.3);
        let pose_b = pose(&mut rng, spread);
        let (wa, wb) = (world(a, &pose_a), world(b, &pose_b));
        let ours = contact(&wa, &wb);
        let truth = brute_force_depth(a, &pose_a, b, &pose_b);
        assert_eq!(ours.map(|c| c.depth), truth, "{name}, pose {k}: contact {ours:?}");
        let Some(c) = ours else {
            assert!(contact(&wb, &wa).is_none(), "{name}, pose {k}: B-A touches, A-B does not");
            continue;
        };
        hits += 1;
        assert!(c.depth >= 0.0 && (c.normal.norm() - 1.0).abs() < 1e-5, "{name}, pose {k}: {c:?}");
        let gap = (c.point_a - c.point_b) - c.normal.into_inner() * c.depth;
        assert!(gap.norm() <= 1e-4, "{name}, pose {k}: point_a - point_b - depth * normal = {gap:?}");
        // Swapped, the triangles are compared in B's frame: the same depth
        // to f32 rounding (1e-6 of the meshes' size, about 1 here).
        let swapped = contact(&wb, &wa).unwrap_or_else(|| panic!("{name}, pose {k}: A-B touches, B-A does not"));
        assert!((swapped.depth - c.depth).abs() <= 1e-5, "{name}, pose {k}: {} vs {} swapped", c.depth, swapped.depth);
    }
    eprintln!("{name}: {hits} of {poses} touch");
    hits
}

#[test]
fn closed_meshes_match_brute_force() {
    let cube = Arc::new(box_mesh(Vector::new(0.5, 0.4, 0.3), 4));
    let ball = Arc::new(sphere_mesh(0.45, 8, 12));
    let (mut hits, mut total) = (0, 0);
    for (name, a, b, seed) in
        [("box-box", &cube, &cube, 1), ("box-sphere", &cube, &ball, 2), ("sphere-sphere", &ball, &ball, 3)]
    {
        hits += check_pair(name, a, b, 1.0, 150, seed);
        total += 150;
    }
    let frac = hits as f64 / total as f64;
    assert!((0.3..0.7).contains(&frac), "touching fraction {frac}");
}

#[test]
fn open_grid_against_closed_meshes_match_brute_force() {
    let mut rng = proxima_test_support::rng(0x6D1D);
    let grid = Arc::new(grid_mesh(8, 1.6, 0.1, &mut rng));
    let cube = Arc::new(box_mesh(Vector::new(0.3, 0.3, 0.3), 3));
    let ball = Arc::new(sphere_mesh(0.35, 6, 10));
    let mut hits = 0;
    for (name, a, b, seed) in
        [("grid-box", &grid, &cube, 4), ("sphere-grid", &ball, &grid, 5), ("grid-grid", &grid, &grid, 6)]
    {
        hits += check_pair(name, a, b, 0.85, 150, seed);
    }
    let frac = hits as f64 / 450.0;
    assert!((0.3..0.7).contains(&frac), "touching fraction {frac}");
}

#[test]
#[cfg(feature = "obj")]
fn spot_against_grid_matches_brute_force() {
    let mut rng = proxima_test_support::rng(0x5B07);
    let spot = Arc::new(spot());
    let grid = Arc::new(grid_mesh(5, 1.2, 0.05, &mut rng));
    let hits = check_pair("spot-grid", &spot, &grid, 1.0, 20, 7) + check_pair("grid-spot", &grid, &spot, 1.0, 20, 8);
    assert!((12..=28).contains(&hits), "{hits} of 40 touch");
}

#[test]
fn meshes_far_apart_and_touching_exactly() {
    let cube = Arc::new(box_mesh(Vector::repeat(0.5), 2));
    let id = Isometry::identity();
    let at = |x: Real| Isometry::translation(x, 0.0, 0.0);
    // Apart by 1/64: no pair touches.
    assert!(contact(&world(&cube, &id), &world(&cube, &at(1.0 + 1.0 / 64.0))).is_none());
    // Face to face (the faces' vertices coincide): touching, depth 0.
    let c = contact(&world(&cube, &id), &world(&cube, &at(1.0))).expect("touching faces");
    assert!(c.depth <= 1e-6, "{c:?}");
    // Far away, at 1e4: the boxes do not overlap.
    assert!(contact(&world(&cube, &id), &world(&cube, &at(1e4))).is_none());
    // Overlapping by 0.25 along x, the side faces coplanar: the deepest
    // pair, as brute force finds it.
    let c = contact(&world(&cube, &id), &world(&cube, &at(0.75))).expect("overlapping");
    assert_eq!(Some(c.depth), brute_force_depth(&cube, &id, &cube, &at(0.75)));
}

/// A scene of meshes, half of them fixed: the pipeline's pairs are the
/// brute-force pairs of `contact`, each with the brute-force depth.
#[test]
fn pipeline_reports_mesh_mesh_pairs() {
    let mut rng = proxima_test_support::rng(0x919E);
    let meshes = [
        Arc::new(box_mesh(Vector::new(0.4, 0.3, 0.2), 2)),
        Arc::new(sphere_mesh(0.35, 6, 8)),
        Arc::new(grid_mesh(4, 1.0, 0.05, &mut rng)),
    ];
    let mut scene = Scene::new();
    let mut placed = Vec::new();
    for i in 0..60 {
        let mesh = &meshes[i % meshes.len()];
        let p = pose(&mut rng, 2.5);
        let mut desc = ColliderDesc::new(ColliderShape::TriMesh(Arc::clone(mesh)), p);
        if i % 2 == 0 {
            desc = desc.fixed();
        }
        placed.push((scene.insert(desc).expect("valid collider"), Arc::clone(mesh), p, i % 2 == 0));
    }
    let mut pipeline = ContactPipeline::new();
    pipeline.update(&mut scene);
    let ours: BTreeSet<_> = pipeline.contacts().iter().map(|p| (p.a, p.b)).collect();
    let mut brute = BTreeSet::new();
    for (i, (ha, ma, pa, fixed_a)) in placed.iter().enumerate() {
        for (hb, mb, pb, fixed_b) in &placed[i + 1..] {
            if *fixed_a && *fixed_b {
                continue;
            }
            if brute_force_depth(ma, pa, mb, pb).is_some() {
                brute.insert(if ha < hb { (*ha, *hb) } else { (*hb, *ha) });
            }
        }
    }
    assert_eq!(ours, brute);
    assert!(brute.len() >= 5, "only {} touching pairs", brute.len());
    for pair in pipeline.contacts() {
        let find = |h| placed.iter().find(|(x, ..)| *x == h).expect("placed");
        let ((_, ma, pa, _), (_, mb, pb, _)) = (find(pair.a), find(pair.b));
        let truth = brute_force_depth(ma, pa, mb, pb).expect("touching");
        assert!(
            (pair.contact.depth - truth).abs() <= 1e-5,
            "{:?}: {} vs {truth}",
            (pair.a, pair.b),
            pair.contact.depth
        );
    }
}
