//! Moving many colliders in one call: every pose checked before any is
//! installed.

use proxima_narrowphase::Isometry;

use crate::collider::ColliderHandle;
use crate::error::SceneError;
use crate::scene::Scene;

impl Scene {
    /// Moves many colliders, as [`set_pose`](Self::set_pose) on each pair
    /// in order would (a handle listed twice ends at its last pose, with the
    /// one before as its sweep start), but all or nothing: every handle and
    /// pose is checked first, and the first stale handle or invalid pose is
    /// the error of a call that leaves the scene unchanged.
    ///
    /// Each pose is validated and its collider placed once; the placements
    /// wait in a buffer the scene keeps, so a steady frame allocates
    /// nothing. This is the call a physics engine makes once per step with
    /// its bodies' new poses.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::Isometry;
    /// let mut scene = Scene::new();
    /// let ball = |x| ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(x, 0.0, 0.0));
    /// let a = scene.insert(ball(0.0)).unwrap();
    /// let b = scene.insert(ball(5.0)).unwrap();
    /// scene.set_poses(&[(a, Isometry::translation(1.0, 0.0, 0.0)), (b, Isometry::translation(2.0, 0.0, 0.0))]).unwrap();
    /// assert_eq!(scene.get(b).unwrap().pose().translation.x, 2.0);
    ///
    /// // One bad pose: nothing moves.
    /// let mut nan = Isometry::identity();
    /// nan.translation.x = f32::NAN;
    /// let rejected = scene.set_poses(&[(a, Isometry::translation(9.0, 0.0, 0.0)), (b, nan)]);
    /// assert!(matches!(rejected, Err(SceneError::InvalidPose { handle: Some(h), .. }) if h == b));
    /// assert_eq!(scene.get(a).unwrap().pose().translation.x, 1.0);
    /// ```
    pub fn set_poses(&mut self, poses: &[(ColliderHandle, Isometry)]) -> Result<(), SceneError> {
        let mut placements = core::mem::take(&mut self.placements);
        placements.clear();
        let checked = poses.iter().try_for_each(|(handle, pose)| {
            placements.push(self.placement(*handle, pose)?);
            Ok(())
        });
        if checked.is_ok() {
            for ((handle, _), (pose, world)) in poses.iter().zip(placements.drain(..)) {
                self.install(handle.index, world, Some(pose));
            }
        }
        // Drops the placements of a rejected call (shared meshes and hulls
        // hold a reference count), keeping the buffer's capacity.
        placements.clear();
        self.placements = placements;
        checked
    }
}
