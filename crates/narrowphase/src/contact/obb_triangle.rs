//! Contact between an oriented box and a triangle.

use super::feature::{box_support, closest_box_triangle_features, triangle_support_down};
use super::Contact;
use crate::distance::ShapeDistance;
use crate::math::{normalize_any, Real, UnitVector, Vector};
use crate::shape::{Obb, Triangle};

/// An edge-edge axis must beat the best face axis by this fraction to be
/// chosen, so that near-ties resolve to the more stable face normal.
const EDGE_REL_TOL: Real = 1e-3;

/// Separations within this fraction of the shapes' size are a tie for
/// [`speculative_normal_obb_triangle`] (10 times the rounding of a support
/// function, ~1e-7 of the coordinates).
const SEPARATION_TIE: Real = 1e-6;

/// The contact between box A and triangle B (a two-sided surface), `None`
/// when they are apart.
///
/// In the box frame, the least-overlap axis of the 13-axis separating-axis
/// test (Akenine-Möller's triangle-box axes, Ericson 5.2.9): the 3 box
/// normals, the triangle normal, and the 9 crosses of a box axis with a
/// triangle edge (near-zero crosses skipped). On axis `L` the box projects to
/// `±sum h_i |L_i|` and the triangle to `[lo, hi]`; the overlap towards `+L` is
/// `r_box - lo`, towards `-L` it is `hi + r_box`, and the smaller picks the
/// normal's direction. `normal` points from the box to the triangle.
///
/// Witness points: a closest pair of the box's support feature along the
/// normal (a vertex, an edge or a face) and the triangle's against it (a
/// vertex, an edge or the face), which lie `depth` apart along the normal
/// (see `feature.rs`): `point_a` on the box, `point_b` on the triangle,
/// `point_a - point_b = depth * normal`.
#[must_use]
pub fn contact_obb_triangle(obb: &Obb, tri: &Triangle) -> Option<Contact> {
    contact_or_gap(obb, &local_vertices(obb, tri), false).ok().map(|o| o.contact(obb))
}

/// Box A and triangle B found overlapping: the least-overlap axis, before
/// the witness points are computed (a manifold that clips a face may not
/// need them).
#[derive(Clone, Copy, Debug)]
pub(super) struct Overlap {
    /// The normal in the box frame, unit, from the box to the triangle.
    normal: Vector,
    /// The overlap along it.
    pub depth: Real,
    /// The triangle's vertices in the box frame.
    v: [Vector; 3],
}

impl Overlap {
    /// The normal in the world frame.
    pub(super) fn normal(&self, obb: &Obb) -> UnitVector {
        UnitVector::new_normalize(obb.axes() * self.normal)
    }

    /// The contact, with its witness points (see [`contact_obb_triangle`]).
    pub(super) fn contact(&self, obb: &Obb) -> Contact {
        let (centre, half) = box_support(obb.half_extents(), &self.normal);
        let (feature, face) = triangle_support_down(&self.v, &self.normal);
        let (on_box, on_tri) = closest_box_triangle_features(&centre, &half, &feature, face);
        Contact {
            point_a: obb.to_world(&on_box),
            point_b: obb.to_world(&on_tri),
            normal: self.normal(obb),
            depth: self.depth,
        }
    }
}

/// Box A and triangle B found apart by a separating axis.
#[derive(Clone, Copy, Debug)]
pub(super) struct Gap {
    /// The separation on the axis, `lo - r_box`: a lower bound of the
    /// shapes' distance (every point of the box and of the triangle
    /// projects on its side of the gap, so no two are closer than it).
    pub gap: Real,
    /// The axis in the box frame, unit, oriented from the box to the
    /// triangle (zero for the degenerate pair that no axis separates).
    pub axis: Vector,
    /// Which of the 13 axes it is.
    pub kind: AxisKind,
}

/// One of the 13 separating axes of a box and a triangle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AxisKind {
    /// A box face normal or the triangle's normal.
    Face,
    /// The cross of box axis `box_axis` with triangle edge `edge` (from
    /// vertex `edge` to vertex `edge + 1`).
    Edge { box_axis: usize, edge: usize },
}

/// [`contact_obb_triangle`]'s axis and overlap, or when the shapes are
/// apart, a separating axis and its gap (see [`Gap`]), for the triangle's
/// vertices `v` in the box frame ([`local_vertices`]). With `widest`, every
/// axis is tried and the one of largest gap returned (a manifold's
/// prediction test, which skips the distance when the bound already
/// exceeds the prediction); otherwise the first separating axis found ends
/// the test.
pub(super) fn contact_or_gap(obb: &Obb, v: &[Vector; 3], widest: bool) -> Result<Overlap, Gap> {
    let h = obb.half_extents();
    scan_axes(h, v, !widest).result(h, v)
}

/// The triangle's vertices in the box frame, `R^T (p - c)`: coordinate `i`
/// is `(r_x d_x + r_y d_y) + r_z d_z` with `r` the box's axis `i` and
/// `d = p - c`, summed in that order. The lane kernel
/// (`obb_triangle_lanes.rs`) sums the same products in the same order, so
/// its vertices, and everything computed from them, are these bit for bit.
#[inline]
pub(super) fn local_vertices(obb: &Obb, tri: &Triangle) -> [Vector; 3] {
    let (c, r) = (obb.center(), obb.axes());
    let axis = |i: usize| Vector::new(r[(0, i)], r[(1, i)], r[(2, i)]);
    let (x, y, z) = (axis(0), axis(1), axis(2));
    tri.vertices().map(|p| {
        let d = p - c;
        Vector::new(dot3(&x, &d), dot3(&y, &d), dot3(&z, &d))
    })
}

/// `(a_x b_x + a_y b_y) + a_z b_z`: the dot product in a fixed order, which
/// the lane kernel repeats.
#[inline(always)]
pub(super) fn dot3(a: &Vector, b: &Vector) -> Real {
    (a.x * b.x + a.y * b.y) + a.z * b.z
}

/// The cross product, component by component as the lane kernel computes it.
#[inline(always)]
pub(super) fn cross3(a: &Vector, b: &Vector) -> Vector {
    Vector::new(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

/// The least of three, by `<` in this order: `_mm_min_ps(_mm_min_ps(a, b), c)`.
#[inline(always)]
pub(super) fn min3(a: Real, b: Real, c: Real) -> Real {
    let m = if a < b { a } else { b };
    if m < c {
        m
    } else {
        c
    }
}

/// The greatest of three, by `>` in this order: `_mm_max_ps(_mm_max_ps(a, b), c)`.
#[inline(always)]
pub(super) fn max3(a: Real, b: Real, c: Real) -> Real {
    let m = if a > b { a } else { b };
    if m > c {
        m
    } else {
        c
    }
}

/// Marks a [`Scan`] slot that no axis filled.
pub(super) const NO_AXIS: u32 = u32::MAX;

/// Axes of the box-triangle test: the 3 box normals, the triangle normal,
/// then the crosses of each triangle edge `k` with each box axis `i`, at
/// `4 + 3 k + i`.
pub(super) const AXES: u32 = 13;

/// The 13-axis test folded over its axes in order: the least overlap over
/// the face axes (box normals and the triangle's normal) and over the edge
/// axes, and the widest gap (the largest `-overlap` of a separating axis),
/// each with the first axis that reached it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Scan {
    pub(super) face: Real,
    pub(super) face_axis: u32,
    pub(super) edge: Real,
    pub(super) edge_axis: u32,
    pub(super) gap: Real,
    pub(super) gap_axis: u32,
}

impl Scan {
    /// No axis yet.
    pub(super) const EMPTY: Scan = Scan {
        face: Real::INFINITY,
        face_axis: NO_AXIS,
        edge: Real::INFINITY,
        edge_axis: NO_AXIS,
        gap: 0.0,
        gap_axis: NO_AXIS,
    };

    /// Folds in axis `index`'s overlap `depth` (negative when it separates).
    #[inline(always)]
    fn add(&mut self, index: u32, depth: Real) {
        if depth < 0.0 && -depth > self.gap {
            (self.gap, self.gap_axis) = (-depth, index);
        }
        let (best, axis) =
            if index < 4 { (&mut self.face, &mut self.face_axis) } else { (&mut self.edge, &mut self.edge_axis) };
        if depth < *best {
            (*best, *axis) = (depth, index);
        }
    }

    /// The test's answer for the triangle `v` (box frame) against the box of
    /// half-extents `h`: the widest gap's axis when an axis separates them,
    /// else the least-overlap axis, a face's unless an edge's overlap is
    /// smaller by [`EDGE_REL_TOL`] of it (near-ties go to the more stable
    /// face normal).
    pub(super) fn result(&self, h: &Vector, v: &[Vector; 3]) -> Result<Overlap, Gap> {
        if self.gap_axis != NO_AXIS {
            let kind = match self.gap_axis {
                0..=3 => AxisKind::Face,
                index => AxisKind::Edge { box_axis: ((index - 4) % 3) as usize, edge: ((index - 4) / 3) as usize },
            };
            return Err(Gap { gap: self.gap, axis: oriented_axis(h, v, self.gap_axis), kind });
        }
        let (axis, depth) = match (self.face_axis, self.edge_axis) {
            (NO_AXIS, NO_AXIS) => {
                // Every axis near zero: a degenerate pair with no axis to
                // separate it (no bound better than 0).
                return Err(Gap { gap: 0.0, axis: Vector::zeros(), kind: AxisKind::Face });
            }
            (NO_AXIS, e) => (e, self.edge),
            (f, NO_AXIS) => (f, self.face),
            (f, e) => {
                if self.edge < self.face * (1.0 - EDGE_REL_TOL) {
                    (e, self.edge)
                } else {
                    (f, self.face)
                }
            }
        };
        Ok(Overlap { normal: oriented_axis(h, v, axis), depth, v: *v })
    }
}

/// The 13 axes' overlaps folded into a [`Scan`]; with `first_gap`, the
/// scan stops at the first separating axis.
fn scan_axes(h: &Vector, v: &[Vector; 3], first_gap: bool) -> Scan {
    let mut scan = Scan::EMPTY;
    for index in 0..AXES {
        if let Some((_, depth)) = overlap_of_axis(h, v, index) {
            scan.add(index, depth);
            if first_gap && depth < 0.0 {
                break;
            }
        }
    }
    scan
}

/// Axis `index`'s unit vector oriented from the box to the triangle.
fn oriented_axis(h: &Vector, v: &[Vector; 3], index: u32) -> Vector {
    overlap_of_axis(h, v, index).map_or_else(Vector::zeros, |(n, _)| n)
}

/// The triangle's edges `v1 - v0`, `v2 - v1`, `v0 - v2`.
#[inline(always)]
pub(super) fn edges(v: &[Vector; 3]) -> [Vector; 3] {
    [v[1] - v[0], v[2] - v[1], v[0] - v[2]]
}

/// Axis `index` (see [`AXES`]) as a unit vector oriented from the box
/// `[-h, h]` to the triangle `v`, with the overlap of their projections
/// on it (negative by the gap when it separates them); `None` for an axis
/// of length at most `Real::EPSILON` (a near-parallel edge cross).
///
/// A box normal `e_k` is taken as it is, with `r = h_k` and the vertices'
/// coordinates `k` as projections; any other axis `a` is scaled by
/// `1 / |a|` first (see [`overlap_along`]).
#[inline(always)]
fn overlap_of_axis(h: &Vector, v: &[Vector; 3], index: u32) -> Option<(Vector, Real)> {
    if index < 3 {
        let k = index as usize;
        let (lo, hi) = (min3(v[0][k], v[1][k], v[2][k]), max3(v[0][k], v[1][k], v[2][k]));
        let (up, down) = (h[k] - lo, hi + h[k]);
        let l = Vector::ith(k, 1.0);
        return Some(if up <= down { (l, up) } else { (-l, down) });
    }
    let e = edges(v);
    let axis = match index {
        3 => cross3(&e[0], &e[1]),
        _ => basis_cross(((index - 4) % 3) as usize, &e[((index - 4) / 3) as usize]),
    };
    let len = dot3(&axis, &axis).sqrt();
    if len.is_nan() || len <= Real::EPSILON {
        return None;
    }
    let inv = 1.0 / len;
    let l = axis * inv;
    Some(overlap_along(v, l, dot3(h, &l.abs())))
}

/// On the unit axis `l`, the box `[-h, h]` projects to `[-r, r]`
/// (`r = sum h_i |l_i|`) and the triangle to `[lo, hi]`; the overlap towards
/// `+l` is `r - lo`, towards `-l` it is `hi + r`, and the smaller picks the
/// direction: that direction and overlap.
#[inline(always)]
fn overlap_along(v: &[Vector; 3], l: Vector, r: Real) -> (Vector, Real) {
    let p = v.map(|x| dot3(&x, &l));
    let (lo, hi) = (min3(p[0], p[1], p[2]), max3(p[0], p[1], p[2]));
    let (up, down) = (r - lo, hi + r);
    if up <= down {
        (l, up)
    } else {
        (-l, down)
    }
}

/// `e_i x e` for box axis `i`, component by component: `(0, -e_z, e_y)`,
/// `(e_z, 0, -e_x)` or `(-e_y, e_x, 0)`.
#[inline(always)]
pub(super) fn basis_cross(i: usize, e: &Vector) -> Vector {
    match i {
        0 => Vector::new(0.0, -e.z, e.y),
        1 => Vector::new(e.z, 0.0, -e.x),
        _ => Vector::new(-e.y, e.x, 0.0),
    }
}

/// The normal (from A to B) of box A and triangle B found apart, with their
/// closest points `d`: of the 13 axes and the direction of `d`, the one of
/// largest separation `lo - r_box` (see [`contact_obb_triangle`]).
///
/// Each candidate's separation is a lower bound of the distance, equal to
/// it for the true normal, and is computed from the support functions with
/// an error of ~1e-7 of the coordinates, whatever the gap. The axes hold the
/// exact normal of face-vertex and edge-edge contacts as a face normal or
/// a cross of edges, whose direction rounding turns by ~1e-7 however close
/// the shapes are; the direction of `d` holds it for the other features
/// (vertex-vertex, vertex-edge), turned by ~1e-7 / gap, which matters only
/// where the gap is so small that any separating axis is as good. The
/// direction along two nearly coincident points alone would be turned by
/// ~1e-7 / gap in every configuration. Ties go to the earliest candidate,
/// the direction of `d` first (exactly along the witness points of `d`, and
/// within rounding of the true normal where the gap is not tiny), then the
/// face axes: a later one must separate by more than [`SEPARATION_TIE`] of
/// the shapes' size more (rounding of the separations, ~1e-7 of it).
pub(super) fn speculative_normal_obb_triangle(obb: &Obb, tri: &Triangle, d: &ShapeDistance) -> Option<UnitVector> {
    let h = obb.half_extents();
    let v = local_vertices(obb, tri);
    let size = h.sum() + (v[1] - v[0]).abs().sum() + (v[2] - v[0]).abs().sum();
    let tie = SEPARATION_TIE * size;
    let mut best: Option<(Vector, Real)> = None; // (normal, separation)
    let mut consider = |(n, overlap): (Vector, Real)| {
        if best.is_none_or(|(_, s)| -overlap > s + tie) {
            best = Some((n, -overlap));
        }
    };
    if let Some(n) = normalize_any(&obb.to_local_vector(&(d.point_b - d.point_a))) {
        // The direction of `d`, as an axis of the same test.
        consider(overlap_along(&v, n.into_inner(), dot3(h, &n.abs())));
    }
    for index in 0..AXES {
        if let Some(found) = overlap_of_axis(h, &v, index) {
            consider(found);
        }
    }
    best.map(|(n, _)| UnitVector::new_normalize(obb.axes() * n))
}
