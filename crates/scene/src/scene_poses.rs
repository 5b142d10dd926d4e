//! Moving many colliders in one call: every pose checked before any is
//! installed.

use proxima_narrowphase::Isometry;

use crate::collider::ColliderHandle;
use crate::error::SceneError;
use crate::scene::{moved_to, Scene};
use crate::shape::validated_pose;

impl Scene {
    /// Moves many colliders, as [`set_pose`](Self::set_pose) on each pair
    /// in order would (a handle listed twice ends at its last pose, with the
    /// one before as its sweep start), but all or nothing: every handle and
    /// pose is checked first, and the first stale handle or invalid pose is
    /// the error of a call that leaves the scene unchanged.
    ///
    /// Each collider is placed once: a sphere, box or capsule in place once
    /// every pose is checked (its check works out only whether it places),
    /// any other shape by the check, its placement waiting in a buffer the
    /// scene keeps, so a steady frame allocates nothing. A pose is
    /// validated by the check and again as it is installed, which costs no
    /// more than keeping it. This is the call a physics engine makes once
    /// per step with its bodies' new poses.
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
        let mut shapes = core::mem::take(&mut self.checked_shapes);
        shapes.clear();
        let checked = poses.iter().try_for_each(|(handle, pose)| {
            let collider = self.colliders.get(*handle).ok_or(SceneError::StaleHandle)?;
            let pose =
                validated_pose(pose).map_err(|error| SceneError::InvalidPose { handle: Some(*handle), error })?;
            if let Some(placed) = collider.desc.shape.check_validated(&pose)? {
                shapes.push(placed);
            }
            Ok(())
        });
        if checked.is_ok() {
            let mut shapes = shapes.drain(..);
            for (handle, pose) in poses {
                // Checked above: the pose validates (again, as cheap as
                // keeping it) and a primitive places.
                let validated = validated_pose(pose);
                debug_assert!(validated.is_ok(), "set_poses' check and install disagree on a pose");
                let Ok(pose) = validated else { continue };
                let collider = &mut self.colliders[handle.index];
                let aabb = if collider.desc.shape.is_primitive() {
                    let placed = collider.desc.shape.place_validated(&pose, &mut collider.world);
                    debug_assert!(placed.is_ok(), "set_poses' check and placement disagree");
                    let Ok(aabb) = placed else { continue };
                    aabb
                } else {
                    let Some((world, aabb)) = shapes.next() else { continue };
                    collider.world = world;
                    aabb
                };
                let (key, previous) = moved_to(collider, pose, aabb);
                self.moved(handle.index, key, aabb, &previous);
            }
        }
        // Drops the placed shapes of a rejected call (shared meshes and
        // hulls hold a reference count), keeping the buffer's capacity.
        shapes.clear();
        self.checked_shapes = shapes;
        checked
    }
}
