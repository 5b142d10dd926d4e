//! The mostly-static world: 1,000,000 static boxes (the sparse scene) and 100
//! moving spheres. Each step every sphere moves and is queried against the
//! static tree; the static tree is never updated. Both sides do exactly that:
//! parry3d's `Bvh` (its best use for a fixed set) and proxima's `StaticBvh`.
//! `static_bvh_cached_m{margin}` gives each sphere an `OverlapCache`: the
//! same exact pairs (checked against the uncached query for 200 steps before
//! timing), the tree traversed only when a sphere leaves its grown box.

use std::hint::black_box;
use std::ops::ControlFlow;

use criterion::{criterion_group, criterion_main, Criterion};
use parry3d::partitioning::{Bvh, BvhBuildStrategy};
use proxima::broadphase::{BroadPhase, OverlapCache, StaticBvh};
use proxima::narrowphase::{Point, Real, Sphere, Vector};
use proxima_test_support::{convert, gen, scene};

const STATIC: usize = 1_000_000;
const MOVING: usize = 100;

fn mostly_static(c: &mut Criterion) {
    let boxes = scene::boxes(STATIC, false, 3);
    let side = scene::scene_side(STATIC, false);
    let ours = StaticBvh::build(&boxes);
    let leaves: Vec<_> = boxes.iter().map(convert::aabb).collect();
    let theirs = Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves);
    let mut rng = proxima_test_support::rng(4);
    let start: Vec<Point> = (0..MOVING)
        .map(|_| {
            Point::new(
                gen::uniform(&mut rng, 0.0, side),
                gen::uniform(&mut rng, 0.0, side),
                gen::uniform(&mut rng, 0.0, side),
            )
        })
        .collect();
    let velocity: Vec<Vector> = (0..MOVING).map(|_| gen::unit_vector(&mut rng) * 0.3).collect();
    let radius: Real = 0.5;

    let mut group = c.benchmark_group("broadphase/mostly_static_1m_100_spheres");
    let mut step = 0usize;
    let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(1024);
    group.bench_function("static_bvh", |b| {
        b.iter(|| {
            step += 1;
            pairs.clear();
            for (k, (p, v)) in start.iter().zip(&velocity).enumerate() {
                let s = Sphere::new(p + v * (step % 100) as Real, radius);
                let _ = ours.visit_overlaps(&s.aabb(), |leaf| {
                    pairs.push((k as u32, leaf));
                    ControlFlow::Continue(())
                });
            }
            black_box(pairs.len())
        })
    });
    // The same queries through one `OverlapCache` per sphere (the query box
    // grown by `margin`; the tree is traversed again only when the sphere's
    // box leaves it): the same pair sets, checked below before timing.
    for margin in [0.5, 1.0, 2.0] {
        let mut caches: Vec<OverlapCache> = (0..MOVING).map(|_| OverlapCache::new(margin).unwrap()).collect();
        let mut step = 0usize;
        let frame = |step: usize, caches: &mut [OverlapCache], pairs: &mut Vec<(u32, u32)>| {
            pairs.clear();
            for (k, ((p, v), cache)) in start.iter().zip(&velocity).zip(caches.iter_mut()).enumerate() {
                let s = Sphere::new(p + v * (step % 100) as Real, radius);
                let _ = ours.visit_overlaps_cached(cache, &s.aabb(), |leaf| {
                    pairs.push((k as u32, leaf));
                    ControlFlow::Continue(())
                });
            }
        };
        for check in 0..200 {
            let mut expected = Vec::new();
            for (k, (p, v)) in start.iter().zip(&velocity).enumerate() {
                let s = Sphere::new(p + v * (check % 100) as Real, radius);
                let _ = ours.visit_overlaps(&s.aabb(), |leaf| {
                    expected.push((k as u32, leaf));
                    ControlFlow::Continue(())
                });
            }
            frame(check, &mut caches, &mut pairs);
            pairs.sort_unstable();
            expected.sort_unstable();
            assert_eq!(pairs, expected, "cached pairs differ at step {check}");
        }
        group.bench_function(format!("static_bvh_cached_m{margin}"), |b| {
            b.iter(|| {
                step += 1;
                frame(step, &mut caches, &mut pairs);
                black_box(pairs.len())
            })
        });
    }
    let mut step = 0usize;
    group.bench_function("parry3d", |b| {
        b.iter(|| {
            step += 1;
            pairs.clear();
            for (k, (p, v)) in start.iter().zip(&velocity).enumerate() {
                let s = Sphere::new(p + v * (step % 100) as Real, radius);
                let q = convert::aabb(&s.aabb());
                pairs.extend(theirs.intersect_aabb(&q).map(|leaf| (k as u32, leaf)));
            }
            black_box(pairs.len())
        })
    });
    group.finish();
}

criterion_group!(benches, mostly_static);
criterion_main!(benches);
