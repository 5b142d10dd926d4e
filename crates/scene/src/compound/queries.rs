//! The queries of a placed compound, each over the children that the other
//! shape's box (in the compound's frame) or the ray reaches: contact, ray,
//! swept sphere, point containment and closest point.

use core::ops::ControlFlow;

use proxima_narrowphase::{Aabb, Contact, Isometry, Point, Ray, RayHit, Real, Sphere, SweepHit, Vector};

use super::Compound;
use crate::contact::contact;
use crate::local_convex::swept_aabb;
use crate::shape::WorldShape;

/// The deepest contact of the compound placed by `pose` and `other`: the
/// deepest of its children's contacts with `other`, the first found on a
/// tie. The compound is shape A when `compound_is_a`, else shape B; the
/// normal runs from A to B, and each child contact is computed in that
/// order (no flip), as for the child alone.
pub(crate) fn contact_compound(
    compound: &Compound,
    pose: &Isometry,
    other: &WorldShape,
    compound_is_a: bool,
) -> Option<Contact> {
    let mut best: Option<Contact> = None;
    let _ = compound.visit_overlapping(pose, &other.aabb(), |i| {
        let child = compound.child_world(i, pose);
        let found = child.and_then(|c| if compound_is_a { contact(&c, other) } else { contact(other, &c) });
        if let Some(c) = found {
            if best.is_none_or(|b| c.depth > b.depth) {
                best = Some(c);
            }
        }
        ControlFlow::Continue(())
    });
    best
}

/// The first hit of `ray` on the compound placed by `pose` (with `any`,
/// some hit), and the child hit: the smallest child `toi`, the first found
/// on a tie (up to 32 children the children are taken by box entry, the
/// lowest index on a tie). A solid child containing the origin is hit at
/// `toi = 0`.
///
/// Each child is cast in the compound's frame: the ray brought into it
/// (rotations keep lengths, so its `toi` is the world one) against the
/// child placed by its local pose, the normal turned back to the world. The
/// answer is the child's as a collider of its own to the rounding of that
/// change of frame (a few `f32` ulps of the coordinates), not bit for bit.
/// A ray the compound's frame cannot take is cast against every child
/// placed in the world.
pub(crate) fn ray_hit_compound(compound: &Compound, pose: &Isometry, ray: &Ray, any: bool) -> Option<(RayHit, u32)> {
    let mut best: Option<(RayHit, u32)> = None;
    // Keeps child `i`'s hit if it is the first so far; the new `max_toi`
    // of the cull, or `None` to stop.
    let mut keep = |i: usize, found: Option<RayHit>| {
        let Some(hit) = found else {
            return Some(best.map_or(ray.max_toi(), |b| b.0.toi));
        };
        if best.is_none_or(|b| hit.toi < b.0.toi) {
            best = Some((hit, i as u32));
        }
        if any {
            return None;
        }
        best.map(|b| b.0.toi)
    };
    let Some(in_frame) = compound.ray_in_frame(pose, ray) else {
        for i in 0..compound.len() {
            if keep(i, world_child_ray_hit(compound, pose, i, ray)).is_none() {
                break;
            }
        }
        return best;
    };
    let local = &in_frame.local;
    match &mut compound.ray_entries(&in_frame) {
        Some(entries) => {
            let mut max_toi = local.max_toi();
            while let Some(i) = entries.next_before(max_toi) {
                match keep(i, compound.local_child(i).convex_ray_hit(local)) {
                    Some(t) => max_toi = max_toi.min(t),
                    None => break,
                }
            }
        }
        None => compound.visit_ray_tree(&in_frame, |i| keep(i, compound.local_child(i).convex_ray_hit(local))),
    }
    // The normal turned from the compound's frame to the world's.
    best.map(|(hit, child)| (RayHit { toi: hit.toi, normal: pose.rotation * hit.normal }, child))
}

/// Child `i`'s hit by `ray`, the child placed in the world: the cast of a
/// ray that the compound's frame cannot take (see [`Compound::ray_in_frame`]).
#[cold]
#[inline(never)]
fn world_child_ray_hit(compound: &Compound, pose: &Isometry, i: usize, ray: &Ray) -> Option<RayHit> {
    compound.child_world(i, pose)?.convex_ray_hit(ray)
}

/// The first hit of `sphere` moving by `motion` on the compound placed by
/// `pose`: the smallest child `toi`, the first found on a tie.
pub(crate) fn cast_sphere_compound(
    compound: &Compound,
    pose: &Isometry,
    sphere: &Sphere,
    motion: &Vector,
) -> Option<SweepHit> {
    let swept = swept_aabb(&sphere.aabb(), motion)?;
    let mut best: Option<SweepHit> = None;
    let _ = compound.visit_overlapping(pose, &swept, |i| {
        if let Some(hit) = compound.child_world(i, pose).and_then(|child| child.cast_sphere(sphere, motion)) {
            if best.is_none_or(|b| hit.toi < b.toi) {
                best = Some(hit);
            }
        }
        ControlFlow::Continue(())
    });
    best
}

/// True when a child of the compound placed by `pose` contains `p`.
pub(crate) fn contains_point_compound(compound: &Compound, pose: &Isometry, p: &Point) -> bool {
    let Ok(probe) = Aabb::try_new(*p, *p) else { return false };
    compound
        .visit_overlapping(pose, &probe, |i| {
            if compound.child_world(i, pose).is_some_and(|child| child.contains_point(p)) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .is_break()
}

/// The point of the compound placed by `pose` closest to `p`: `p` itself
/// inside a child, else the closest of the children's closest points (the
/// first found on a tie). A child whose local box is farther from `p` than
/// the best point so far is skipped: its points are farther still (a
/// rotation keeps distances, so the local distance is the world one).
pub(crate) fn closest_point_compound(compound: &Compound, pose: &Isometry, p: &Point) -> Point {
    let local = pose.inverse_transform_point(p);
    let mut best: Option<(Point, Real)> = None;
    for (i, b) in compound.boxes.iter().enumerate() {
        let to_box = (local.coords - local.coords.sup(&b.min().coords).inf(&b.max().coords)).norm();
        // The box distance is rounded, as the child's own: a child is skipped
        // only when its box is farther by a clear relative margin.
        if best.is_some_and(|(_, d)| to_box > d * (1.0 + 1e-4) + 1e-6) {
            continue;
        }
        let Some(child) = compound.child_world(i, pose) else { continue };
        let q = child.closest_point(p);
        let d = (q - p).norm();
        if best.is_none_or(|(_, bd)| d < bd) {
            best = Some((q, d));
            if d == 0.0 {
                break;
            }
        }
    }
    best.map_or(*p, |(q, _)| q)
}
