//! A box whose corner rests on or beside a vertex of a gently bumpy
//! triangle mesh: the mesh manifolds push it out of the mesh, never through
//! it.
//!
//! `contact_manifolds(mesh, box)`, normals `n` from the mesh to the box.
//! Near the corner, a triangle that meets the box only at its vertex or
//! edge reports an edge or vertex contact whose normal may lie almost in
//! its plane; on an inactive (flat) feature that contact is turned to the
//! triangle's face normal, which must be the one on the box's side. Checks:
//! - every point pushes the box away from the mesh: the box's centre `c`
//!   is on the normal's side of the point's mesh point,
//!   `(c - point_a) . n > 0` (a box resting on the mesh has its centre
//!   half its height above the contact; a face normal on the wrong side
//!   points down, and the centre lies behind it);
//! - no point is deeper than the box sinks into the mesh by more than
//!   `DEPTH_TOL = 1e-3` m. How deep it sinks: the greater of parry3d 0.31's
//!   one-shot `query::contact` (the greatest penetration of the box and one
//!   triangle, which may push the box sideways out of a triangle it meets at
//!   a vertex) and the greatest distance to the mesh of the box's surface
//!   points under it (sampled on a grid, a lower bound of the depth along
//!   the surface's normals). A contact on the wrong side of a triangle is
//!   as deep as the box reaches above the plane: most of its height.

mod common;

use std::sync::Arc;

use common::distance::point_triangle;
use nalgebra::{Quaternion, Translation3, UnitQuaternion, Vector3};
use parry3d::math::Pose;
use parry3d::shape::{Cuboid as PCuboid, TriMesh as PTriMesh};
use proxima_narrowphase::{ContactManifold, Isometry, Obb, Point, Real, Vector};
use proxima_scene::*;
use proxima_test_support::gen::{self, uniform};
use proxima_test_support::{convert, rng, Rng};

const PREDICTION: Real = 0.02;
const DEPTH_TOL: f64 = 1e-3;

/// The spacing of the recorded floor's grid, along x and z (exact in f32).
const CELL: Real = 1.0390625;

/// Heights (f32 bits) of a `5 x 5` block of vertices of a bumpy floor, row
/// `j` along z, column `i` along x: vertex `(i, j)` at `x = (i - 3) CELL`,
/// `z = (j - 15) CELL`. The centre `(2, 2)` is near the top of a gentle
/// bump: the triangles around it slope by up to 4 degrees, and their
/// neighbours are all in the patch, so their edges are active or inactive
/// as in the whole floor.
const HEIGHTS: [[u32; 5]; 5] = [
    [0xbe1b4078, 0xbe633e2d, 0xbe4e3ec8, 0xbdc4d294, 0x3d36eaad],
    [0xbe257cf5, 0xbdde5806, 0xbdc32489, 0xbde1fcb8, 0xbdc878b6],
    [0xbe14e45c, 0xbd2197e6, 0xbcbb3f30, 0xbdac0026, 0xbe0a0cd5],
    [0xbe06f9e3, 0xbda13420, 0xbd0ff7fc, 0xbc6519c0, 0xbbac3990],
    [0xbdbaf56c, 0xbdf97f8d, 0xbd521e40, 0x3da4485e, 0x3e35f862],
];

/// The `4 x 4` quads over [`HEIGHTS`], each split along its diagonal from
/// `(i, j)` to `(i + 1, j + 1)` into two triangles facing `+y`.
fn recorded_patch() -> TriMesh {
    let mut vertices = Vec::new();
    for (j, row) in HEIGHTS.iter().enumerate() {
        for (i, &h) in row.iter().enumerate() {
            let (x, z) = ((i as Real - 3.0) * CELL, (j as Real - 15.0) * CELL);
            vertices.push(Point::new(x, f32::from_bits(h), z));
        }
    }
    TriMesh::new(vertices, grid_indices(4)).expect("a valid patch")
}

/// The triangles of an `n x n` grid of quads over vertex `(i, j)` at index
/// `(n + 1) j + i`, split along the diagonal from `(i, j)` to
/// `(i + 1, j + 1)`, counter-clockwise seen from `+y`.
fn grid_indices(n: usize) -> Vec<[u32; 3]> {
    let at = |i: usize, j: usize| ((n + 1) * j + i) as u32;
    let mut indices = Vec::new();
    for j in 0..n {
        for i in 0..n {
            indices.push([at(i, j), at(i, j + 1), at(i + 1, j + 1)]);
            indices.push([at(i, j), at(i + 1, j + 1), at(i + 1, j)]);
        }
    }
    indices
}

/// The recorded cube (half-extent 0.4): its lowest corner 0.0153 m under
/// the patch's peak vertex, 0.2 mm beside it.
fn recorded_box() -> Obb {
    let t = Translation3::new(f32::from_bits(0xbf34122b), f32::from_bits(0x3ea88c51), f32::from_bits(0xc15fb44d));
    let q = Quaternion::new(
        f32::from_bits(0x3f262c93),
        f32::from_bits(0xbbde9af1),
        f32::from_bits(0x3f429854),
        f32::from_bits(0xbce692bf),
    );
    Obb::new(Point::from(t.vector), UnitQuaternion::new_unchecked(q), Vector::repeat(0.4))
}

/// The depth of parry3d's one-shot contact of the box and the mesh,
/// `-PREDICTION` when they are farther apart.
fn parry_depth(mesh: &TriMesh, obb: &Obb) -> Real {
    let vertices = mesh.vertices().iter().map(convert::pt).collect();
    let twin = PTriMesh::new(vertices, mesh.indices().to_vec()).expect("a valid mesh");
    let (pose, cuboid): (Pose, PCuboid) = convert::cuboid(obb);
    let c = parry3d::query::contact(&Pose::identity(), &twin, &pose, &cuboid, PREDICTION).expect("supported");
    c.map_or(-PREDICTION, |c| -c.dist)
}

/// The mesh manifolds of the box, the least `(c - point_a) . n` over
/// their points (the box's centre `c` on the normal's side when positive),
/// and their greatest depth.
fn manifolds(mesh: &Arc<TriMesh>, obb: &Obb) -> (Vec<ContactManifold>, Real, Real) {
    let floor = WorldShape::TriMesh(Arc::clone(mesh), Isometry::identity());
    let mut out = Vec::new();
    contact_manifolds(&floor, &WorldShape::Obb(*obb), PREDICTION, &mut out);
    let (mut side, mut depth) = (Real::INFINITY, Real::NEG_INFINITY);
    for m in &out {
        for p in m.points() {
            side = side.min((obb.center() - p.point_a).dot(&m.normal));
            depth = depth.max(p.depth);
        }
    }
    (out, side, depth)
}

/// The recorded case: two triangles that meet the box only near the centre
/// vertex (on inactive features) gave edge contacts whose normals lay
/// within 4 degrees of their planes, leaning to the far side. Turned to
/// their face normals on that side, they pushed the box down through the
/// floor, 0.174 m and 0.048 m deep. The box's corner is 0.0153 m under the
/// surface (parry3d's one-shot depth, and the face contacts' of the
/// triangles under it).
#[test]
fn a_box_corner_beside_a_mesh_vertex_is_pushed_out_of_the_mesh() {
    let mesh = Arc::new(recorded_patch());
    let obb = recorded_box();
    let (out, side, depth) = manifolds(&mesh, &obb);
    let exact = parry_depth(&mesh, &obb);
    assert!((exact - 0.0153).abs() < 1e-4, "parry's depth {exact}");
    assert!(side > 0.0, "a normal pushes the box into the mesh ({side}): {out:?}");
    assert!((f64::from(depth - exact)).abs() <= DEPTH_TOL, "depth {depth}, parry's {exact}: {out:?}");
}

/// The height of a smooth bump field (up to 0.45 m, slopes up to 12
/// degrees), the recorded floor's.
fn bump(x: Real, z: Real) -> Real {
    use std::f32::consts::TAU;
    0.2 * (TAU * x / 7.3).sin() * (TAU * z / 6.1).sin()
        + 0.15 * (TAU * (x + z) / 11.7 + 1.0).sin()
        + 0.1 * (TAU * (x - 2.0 * z) / 17.9 + 2.0).sin()
}

/// The mesh's height at `(x, z)` (f64, over the mesh's grid of unit quads,
/// `n` along each side): in quad `(i, j)` at `(u, v)` from its corner, the
/// triangle `u <= v` spans vertices `(i, j)`, `(i, j + 1)`, `(i + 1, j + 1)`,
/// the other `(i, j)`, `(i + 1, j + 1)`, `(i + 1, j)`.
fn mesh_height(mesh: &TriMesh, n: usize, x: f64, z: f64) -> f64 {
    let (i, j) = ((x.floor() as usize).min(n - 1), (z.floor() as usize).min(n - 1));
    let (u, v) = (x - i as f64, z - j as f64);
    let h = |i: usize, j: usize| f64::from(mesh.vertices()[(n + 1) * j + i].y);
    if u <= v {
        h(i, j) + v * (h(i, j + 1) - h(i, j)) + u * (h(i + 1, j + 1) - h(i, j + 1))
    } else {
        h(i, j) + u * (h(i + 1, j) - h(i, j)) + v * (h(i + 1, j + 1) - h(i + 1, j))
    }
}

/// The greatest distance to the mesh of the box's surface points under it,
/// sampled on a `33 x 33` grid of each face (0 when none is under it).
fn sampled_depth(mesh: &TriMesh, n: usize, obb: &Obb) -> f64 {
    let mut near = Vec::new();
    let _ = mesh.visit_triangles(&obb.aabb().loosened(0.1), |t| {
        near.push(mesh.triangle(t));
        core::ops::ControlFlow::Continue(())
    });
    let k = 32;
    let mut deepest: f64 = 0.0;
    for axis in 0..3 {
        for sign in [-1.0, 1.0] {
            for (a, b) in (0..=k).flat_map(|a| (0..=k).map(move |b| (a, b))) {
                let mut local = Vector::zeros();
                local[axis] = sign;
                local[(axis + 1) % 3] = 2.0 * a as Real / k as Real - 1.0;
                local[(axis + 2) % 3] = 2.0 * b as Real / k as Real - 1.0;
                let x: Vector3<f64> = obb.to_world(&local.component_mul(obb.half_extents())).coords.cast();
                if x.y < mesh_height(mesh, n, x.x, x.z) {
                    let d = near.iter().map(|t| point_triangle(&x, t)).fold(f64::INFINITY, f64::min);
                    deepest = deepest.max(d);
                }
            }
        }
    }
    deepest
}

/// Random boxes (half-extents U[0.15, 0.6), uniform rotations) whose
/// lowest corner is placed within 1 cm (along x and z) of a random inner
/// vertex of a `16 x 16` grid of unit quads over [`bump`], from 1.5 cm
/// above to 1.5 cm under it. 30-70% of them penetrate the mesh (parry3d's
/// depth > 0).
#[test]
fn boxes_resting_on_mesh_vertices_are_pushed_out_of_the_mesh() {
    let n = 16;
    let vertices = (0..=n)
        .flat_map(|j| (0..=n).map(move |i| Point::new(i as Real, bump(i as Real, j as Real), j as Real)))
        .collect();
    let mesh = Arc::new(TriMesh::new(vertices, grid_indices(n)).expect("a valid mesh"));
    let mut rng = rng(0x7665_7274);
    let cases = common::cases(2000);
    let mut penetrating = 0;
    for case in 0..cases {
        let v = mesh.vertices()[(n + 1) * rng.random_range(2..n - 1) + rng.random_range(2..n - 1)];
        let h = gen::half_extents(&mut rng, &gen::Placement::new(0.0, 0.15, 0.6));
        let rotation = gen::rotation(&mut rng);
        // The lowest corner, from the centre: `R (sign(R^T (-y)) * h)`.
        let down = rotation.inverse() * -Vector::y();
        let corner = rotation * h.zip_map(&down, |h, d| if d >= 0.0 { h } else { -h });
        let offset = Vector::new(
            uniform(&mut rng, -0.01, 0.01),
            uniform(&mut rng, -0.015, 0.015),
            uniform(&mut rng, -0.01, 0.01),
        );
        let obb = Obb::new(v + offset - corner, rotation, h);
        let (out, side, depth) = manifolds(&mesh, &obb);
        let exact = parry_depth(&mesh, &obb);
        penetrating += usize::from(exact > 0.0);
        assert!(side > 0.0, "case {case}: a normal pushes {obb:?} into the mesh ({side}): {out:?}");
        let sinks = f64::from(exact).max(sampled_depth(&mesh, n, &obb));
        assert!(
            f64::from(depth) <= sinks + DEPTH_TOL,
            "case {case}: depth {depth}, the box sinks {sinks} (parry's {exact}): {obb:?} {out:?}"
        );
    }
    assert!(penetrating * 10 >= cases * 3 && penetrating * 10 <= cases * 7, "{penetrating} of {cases} penetrate");
}

/// A long, thin plank lying across a gentle ridge (two slopes meeting at 4
/// degrees: an inactive edge), slightly into it, turned about the vertical
/// and shifted along the ridge: its contacts push it up, out of the mesh,
/// and no deeper than it sinks at the ridge. Each slope's plane, extended
/// past the ridge, passes above the plank's far end (by at least
/// `2.5 tan 2°` = 0.087 m, against a plank 0.05 m thick): a side rule that
/// measured the plank across a slope's whole plane would put it under the
/// slope.
#[test]
fn a_long_plank_across_a_gentle_ridge_is_pushed_up() {
    let slope = (2.0 as Real).to_radians().tan();
    let (reach, width) = (20.0, 4.0);
    let vertices = vec![
        Point::new(-reach, -reach * slope, -width),
        Point::new(0.0, 0.0, -width),
        Point::new(reach, -reach * slope, -width),
        Point::new(-reach, -reach * slope, width),
        Point::new(0.0, 0.0, width),
        Point::new(reach, -reach * slope, width),
    ];
    let indices = vec![[0, 3, 1], [1, 3, 4], [1, 4, 2], [2, 4, 5]];
    let mesh = Arc::new(TriMesh::new(vertices, indices).expect("a valid mesh"));
    let mut rng = rng(0x7269_6467);
    for case in 0..200 {
        let h = Vector::new(uniform(&mut rng, 2.5, 5.0), 0.025, uniform(&mut rng, 0.1, 0.5));
        let sink = uniform(&mut rng, 0.0, 0.01);
        let turn = nalgebra::UnitQuaternion::from_axis_angle(&Vector::y_axis(), uniform(&mut rng, -0.3, 0.3));
        let centre = Point::new(uniform(&mut rng, -0.05, 0.05), h.y - sink, uniform(&mut rng, -1.0, 1.0));
        let obb = Obb::new(centre, turn, h);
        let (out, side, depth) = manifolds(&mesh, &obb);
        assert!(!out.is_empty(), "case {case}: the plank touches the ridge");
        assert!(side > 0.0, "case {case}: a normal pushes {obb:?} into the mesh ({side}): {out:?}");
        // The plank sinks `sink` at the ridge, less beside it.
        assert!(depth <= sink + 1e-4, "case {case}: depth {depth} for a plank sunk {sink}: {out:?}");
    }
}
