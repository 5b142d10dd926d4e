//! Moving many colliders in one call: every pose checked before any is
//! installed.

use proxima_narrowphase::Isometry;

use crate::collider::ColliderHandle;
use crate::error::SceneError;
use crate::scene::Scene;
use crate::shape::WorldShape;

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
        for (handle, pose) in poses {
            let placement = self.placement(*handle, pose);
            let rejected = placement.is_err();
            placements.push(placement);
            if rejected {
                break;
            }
        }
        let installed = self.install(poses, &mut placements);
        self.placements = placements;
        installed
    }

    /// [`set_poses`](Self::set_poses) with the poses validated and the
    /// colliders placed on the threads of the current rayon pool (run it
    /// inside [`ThreadPool::install`](rayon::ThreadPool::install) to choose
    /// the pool); the query tree is then updated on the calling thread, in
    /// order. The same scene as `set_poses` for any number of threads, and
    /// the same error: the first bad entry in the list's order.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::Isometry;
    /// let mut scene = Scene::new();
    /// let ball = |x| ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(x, 0.0, 0.0));
    /// let a = scene.insert(ball(0.0)).unwrap();
    /// let b = scene.insert(ball(5.0)).unwrap();
    /// let pool = rayon::ThreadPoolBuilder::new().num_threads(2).use_current_thread().build().unwrap();
    /// let poses = [(a, Isometry::translation(1.0, 0.0, 0.0)), (b, Isometry::translation(2.0, 0.0, 0.0))];
    /// pool.install(|| scene.set_poses_parallel(&poses)).unwrap();
    /// assert_eq!(scene.get(b).unwrap().pose().translation.x, 2.0);
    /// ```
    #[cfg(feature = "parallel")]
    pub fn set_poses_parallel(&mut self, poses: &[(ColliderHandle, Isometry)]) -> Result<(), SceneError> {
        use rayon::prelude::*;
        let mut placements = core::mem::take(&mut self.placements);
        placements.clear();
        let scene: &Scene = self;
        placements.par_extend(poses.par_iter().map(|(handle, pose)| scene.placement(*handle, pose)));
        let installed = self.install(poses, &mut placements);
        self.placements = placements;
        installed
    }

    /// Installs `placements` (one per entry of `poses`, in order, the list
    /// cut after the first error, if any) when all are valid; otherwise
    /// returns the first error and changes nothing. Leaves `placements`
    /// empty with its capacity (dropping a rejected call's placements gives
    /// back the shared meshes and hulls they hold).
    fn install(
        &mut self,
        poses: &[(ColliderHandle, Isometry)],
        placements: &mut Vec<Result<(Isometry, WorldShape), SceneError>>,
    ) -> Result<(), SceneError> {
        if let Some(bad) = placements.iter().position(Result::is_err) {
            let error = placements.swap_remove(bad);
            placements.clear();
            return error.map(|_| ());
        }
        for ((handle, _), placement) in poses.iter().zip(placements.drain(..)) {
            let (pose, world) = placement.expect("every placement checked");
            self.replace(*handle, world, Some(pose), None);
        }
        Ok(())
    }
}
