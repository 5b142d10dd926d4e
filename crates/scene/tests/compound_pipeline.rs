//! A compound collider through the contact pipeline: a table (a top and
//! four legs, one leg longer) lowered onto a box floor gets a `Started`
//! event when its long leg touches, manifolds whose point ids name the
//! touching legs (never the top), and a `Stopped` event when lifted.

mod common;

use common::compound::table;
use proxima_narrowphase::{Isometry, Real, Vector};
use proxima_scene::*;

#[test]
fn a_falling_table_touches_with_its_legs() {
    let mut scene = Scene::new();
    let floor = ColliderShape::Cuboid { half_extents: Vector::new(5.0, 0.5, 5.0) };
    let floor = scene.insert(ColliderDesc::new(floor, Isometry::translation(0.0, -0.5, 0.0)).fixed()).unwrap();
    let table = scene
        .insert(ColliderDesc::new(ColliderShape::Compound(table()), Isometry::translation(0.0, 0.5, 0.0)))
        .unwrap();
    let mut pipeline = ContactPipeline::new().with_manifolds(0.0).unwrap();
    let mut started_at = None;
    for frame in 0..60 {
        // Lowered by 0.01 a frame: the long leg (bottom at y - 0.05) touches
        // from y = 0.05 on, every leg from y = 0.
        let y = 0.5 - 0.01 * frame as Real;
        scene.set_pose(table, Isometry::translation(0.0, y, 0.0)).unwrap();
        let events = pipeline.update(&mut scene).to_vec();
        let mut children: Vec<usize> = pipeline
            .manifolds()
            .iter()
            .flat_map(|m| m.manifold.points().iter().map(|p| Compound::child_of_point_id(p.id)))
            .collect();
        children.sort_unstable();
        children.dedup();
        for m in pipeline.manifolds() {
            assert_eq!((m.a.min(m.b), m.a.max(m.b)), (floor.min(table), floor.max(table)));
            assert!(m.manifold.points().iter().all(|p| p.depth >= 0.0));
        }
        if y > 0.05 + 1e-4 {
            assert!(events.is_empty() && children.is_empty(), "frame {frame}, y {y}: {events:?}");
        } else if y > 1e-4 {
            // Only the long leg: child 3.
            assert_eq!(children, vec![3], "frame {frame}, y {y}");
        } else if y < -1e-4 {
            assert_eq!(children, vec![1, 2, 3, 4], "frame {frame}, y {y}");
        }
        if let Some(ContactEvent::Started(pair)) = events.first() {
            assert!(started_at.is_none(), "frame {frame}: started twice");
            assert_eq!(events.len(), 1);
            assert_eq!((pair.a.min(pair.b), pair.a.max(pair.b)), (floor.min(table), floor.max(table)));
            started_at = Some(frame);
        }
        if y < -0.05 {
            break;
        }
    }
    // Started in the frame at y = 0.05 (within a frame for the rounding of y).
    let started_at = started_at.expect("a Started event");
    assert!((44..=46).contains(&started_at), "started at frame {started_at}");
    // Each leg's manifold on the floor's face: four points.
    for m in pipeline.manifolds() {
        assert_eq!(m.manifold.len(), 4);
    }
    // Lifted: the pair stops.
    scene.set_pose(table, Isometry::translation(0.0, 1.0, 0.0)).unwrap();
    let events = pipeline.update(&mut scene).to_vec();
    assert!(matches!(events.as_slice(), [ContactEvent::Stopped { .. }]), "{events:?}");
}
