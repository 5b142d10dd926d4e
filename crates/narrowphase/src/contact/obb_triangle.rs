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
    contact_or_gap(obb, tri, false).ok().map(|o| o.contact(obb))
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

/// [`contact_obb_triangle`]'s axis and overlap, or when the shapes are apart,
/// a separating axis and its gap (see [`Gap`]). With `widest`, every axis is tried and
/// the one of largest gap returned (a manifold's prediction test, which
/// skips the distance when the bound already exceeds the prediction);
/// otherwise the first separating axis found ends the test.
pub(super) fn contact_or_gap(obb: &Obb, tri: &Triangle, widest: bool) -> Result<Overlap, Gap> {
    let h = obb.half_extents();
    let v = tri.vertices().map(|p| obb.to_local(&p));
    // The least overlaps over the face axes and over the edge axes.
    let (mut face, mut edge) = (None::<(Vector, Real)>, None::<(Vector, Real)>);
    let mut apart: Option<Gap> = None;
    for (index, (axis, is_edge)) in axes(&v).into_iter().enumerate() {
        let Some((n, depth)) = overlap_on_axis(h, &v, &axis) else { continue };
        if depth < 0.0 {
            let kind = if is_edge {
                AxisKind::Edge { box_axis: (index - 4) % 3, edge: (index - 4) / 3 }
            } else {
                AxisKind::Face
            };
            let gap = Gap { gap: -depth, axis: n, kind };
            if !widest {
                return Err(gap);
            }
            if apart.is_none_or(|g| gap.gap > g.gap) {
                apart = Some(gap);
            }
        }
        let best = if is_edge { &mut edge } else { &mut face };
        if best.is_none_or(|(_, d)| depth < d) {
            *best = Some((n, depth));
        }
    }
    if let Some(gap) = apart {
        return Err(gap);
    }
    let best = match (face, edge) {
        (Some((_, f)), Some(e)) if e.1 < f * (1.0 - EDGE_REL_TOL) => Some(e),
        (None, e) => e,
        (f, _) => f,
    };
    // Every axis near zero: a degenerate pair with no axis to separate it
    // (no bound better than 0).
    let (normal, depth) = best.ok_or(Gap { gap: 0.0, axis: Vector::zeros(), kind: AxisKind::Face })?;
    Ok(Overlap { normal, depth, v })
}

/// The 13 candidate axes (box frame, not normalised) with a flag telling
/// the edge-edge crosses: the 3 box normals, the triangle normal, then the
/// crosses of each triangle edge `k` with each box axis `i`, at `4 + 3 k + i`.
fn axes(v: &[Vector; 3]) -> [(Vector, bool); 13] {
    let edges = [v[1] - v[0], v[2] - v[1], v[0] - v[2]];
    let mut out = [(Vector::zeros(), false); 13];
    for (i, slot) in out.iter_mut().take(3).enumerate() {
        *slot = (Vector::ith(i, 1.0), false);
    }
    out[3] = (edges[0].cross(&edges[1]), false);
    for (k, e) in edges.iter().enumerate() {
        for i in 0..3 {
            out[4 + 3 * k + i] = (Vector::ith(i, 1.0).cross(e), true);
        }
    }
    out
}

/// The unit axis along `axis` oriented from the box `[-h, h]` to the
/// triangle `v`, with the overlap of their projections on it (negative by
/// the gap when it separates them); `None` for a near-zero axis.
fn overlap_on_axis(h: &Vector, v: &[Vector; 3], axis: &Vector) -> Option<(Vector, Real)> {
    let len = axis.norm();
    if len <= Real::EPSILON {
        return None;
    }
    let l = axis / len;
    let r = h.x * l.x.abs() + h.y * l.y.abs() + h.z * l.z.abs();
    let p = v.map(|x| x.dot(&l));
    let (lo, hi) = (p[0].min(p[1]).min(p[2]), p[0].max(p[1]).max(p[2]));
    let (up, down) = (r - lo, hi + r);
    Some(if up <= down { (l, up) } else { (-l, down) })
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
    let v = tri.vertices().map(|p| obb.to_local(&p));
    let size = h.sum() + (v[1] - v[0]).abs().sum() + (v[2] - v[0]).abs().sum();
    let tie = SEPARATION_TIE * size;
    let mut best: Option<(Vector, Real)> = None; // (normal, separation)
    let closest = normalize_any(&obb.to_local_vector(&(d.point_b - d.point_a))).map(|n| (n.into_inner(), false));
    for (axis, _) in closest.into_iter().chain(axes(&v)) {
        let Some((n, overlap)) = overlap_on_axis(h, &v, &axis) else { continue };
        if best.is_none_or(|(_, s)| -overlap > s + tie) {
            best = Some((n, -overlap));
        }
    }
    best.map(|(n, _)| UnitVector::new_normalize(obb.axes() * n))
}
