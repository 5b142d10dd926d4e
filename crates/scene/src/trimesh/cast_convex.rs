//! A convex shape moving linearly against a mesh (mesh frame): the
//! triangles under the swept box, each cast by conservative advancement.

use core::ops::ControlFlow;

use proxima_narrowphase::{cast_shape_convex, intersects_aabb_aabb, Aabb, SweepHit, Triangle, Vector};

use super::TriMesh;
use crate::local_convex::{swept_aabb, LocalConvex};

impl TriMesh {
    /// The first hit of the convex `shape` moving by `motion` (both in the
    /// mesh frame) on a triangle: the least `toi` of
    /// [`cast_shape_convex`] over the triangles whose boxes overlap the box
    /// `shape` sweeps, that box shrunk to the best hit found so far. `point`
    /// and `normal` are in the mesh frame, the normal out of the triangle
    /// hit, towards the shape. Ties keep the first found.
    ///
    /// Each cast runs relative to the centre `o` of the shape's start box:
    /// the shape and each triangle moved by `-o` (see
    /// [`LocalConvex::shifted`]), the hit point moved back by `+o`.
    pub(crate) fn cast_convex(&self, shape: &LocalConvex<'_>, motion: &Vector) -> Option<SweepHit> {
        let start = shape.aabb();
        let swept = swept_aabb(&start, motion)?;
        let origin = start.center().coords;
        let local = shape.shifted(&origin)?;
        let moving = local.convex();
        let mut best: Option<SweepHit> = None;
        let _ = self.visit_candidates(&swept, |_, t| {
            // Past the best hit the shape never reaches this triangle.
            if let Some(b) = best {
                let reach = swept_aabb(&start, &(motion * b.toi));
                let bounds = Aabb::from_points(t.vertices().iter());
                if let (Some(reach), Some(bounds)) = (reach, bounds) {
                    if !intersects_aabb_aabb(&reach, &bounds) {
                        return ControlFlow::Continue(());
                    }
                }
            }
            let [a, b, c] = t.vertices().map(|v| v - origin);
            let Ok(near) = Triangle::try_new(a, b, c) else { return ControlFlow::Continue(()) };
            if let Some(hit) = cast_shape_convex(&moving, motion, &near) {
                if best.is_none_or(|b| hit.toi < b.toi) {
                    best = Some(SweepHit { point: hit.point + origin, ..hit });
                }
            }
            ControlFlow::Continue(())
        });
        best
    }
}
