//! `StaticBvh` benchmarks, each side by side with parry3d 0.31's `Bvh` on the
//! same seeded scene, `proxima_test_support::scene::boxes(n, false, SEED)`.
//!
//! - `static_bvh/build_{100k,1m}/{proxima,parry3d}`: building the tree
//!   (ours: binned SAH on 3 axes, rayon; parry: `BvhBuildStrategy::Binned`,
//!   single-threaded). The SAH costs of both trees (`C_trav = C_isect = 1`,
//!   areas over the root's, on the binary trees) are printed once.
//! - `static_bvh/rays_{10k,100k,1m}/{proxima,parry3d}`: 100,000 closest-hit
//!   rays, one thread, origins uniform in the scene cube, uniform directions,
//!   `max_toi` the cube's diagonal. The boxes are the geometry: both leaf
//!   tests are `ray_aabb_interval` with the best `toi` so far. `proxima` is
//!   one `visit_ray` per ray; `proxima_batch` is `visit_rays` over all of
//!   them (8 rays in flight). At 100k, `proxima_sse2` and `proxima_scalar`
//!   force the traversal's kernel.
//! - `static_bvh/kernel/*`: ray against 32,768 boxes (throughput per box):
//!   the scalar `ray_aabb_interval` on each box, and the wide kernels on 8-
//!   or 4-box packs (portable, SSE2, AVX, and the run-time dispatch).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parry3d::partitioning::{Bvh, BvhBuildStrategy};
use proxima::broadphase::{BroadPhase, BuildOptions, RayControl, StaticBvh};
use proxima::narrowphase::kernels::{
    cast_ray_aabb_lanes_scalar, cast_ray_aabb_x8, ray_aabb_interval, AabbX4, AabbX8, PrecomputedRay, RayInterval,
    SimdLevel,
};
use proxima::narrowphase::{Aabb, Ray, Real};
use proxima_test_support::{convert, parry, scene};
use std::hint::black_box;
use std::time::Duration;

const SEED: u64 = 1;
const RAYS: usize = 100_000;

fn parry_leaves(boxes: &[Aabb]) -> Vec<parry3d::bounding_volume::Aabb> {
    boxes.iter().map(convert::aabb).collect()
}

fn build(c: &mut Criterion) {
    for (n, name) in [(100_000, "100k"), (1_000_000, "1m")] {
        let boxes = scene::boxes(n, false, SEED);
        let leaves = parry_leaves(&boxes);
        let ours = StaticBvh::build(&boxes).validate().expect("valid tree");
        let parry = parry::sah_cost(&Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves));
        eprintln!(
            "static_bvh: {n} boxes: SAH cost proxima {:.2} (options {:?}), parry3d {parry:.2}",
            ours.sah_cost,
            BuildOptions::default()
        );
        let mut g = c.benchmark_group(format!("static_bvh/build_{name}"));
        g.sample_size(10).throughput(Throughput::Elements(n as u64));
        g.bench_function("proxima", |b| b.iter(|| StaticBvh::build(black_box(&boxes))));
        g.bench_function("parry3d", |b| b.iter(|| Bvh::from_leaves(BvhBuildStrategy::Binned, black_box(&leaves))));
        g.finish();
    }
}

/// The benchmark's rays over the scene of `n` boxes.
fn rays(n: usize) -> Vec<Ray> {
    scene::rays(n, RAYS, SEED + 1)
}

/// Closest hits of every ray, counted; leaf test `ray_aabb_interval`.
fn cast_all_proxima(bvh: &StaticBvh, boxes: &[Aabb], rays: &[Ray]) -> usize {
    let mut hits = 0;
    for ray in rays {
        let pre = PrecomputedRay::new(ray);
        let mut best: Option<Real> = None;
        bvh.visit_ray(ray, |id, _entry| {
            let clipped = PrecomputedRay { max_toi: best.unwrap_or(ray.max_toi()), ..pre };
            match ray_aabb_interval(&clipped, &boxes[id as usize]) {
                Some(RayInterval { toi_enter: toi, .. }) => {
                    best = Some(toi);
                    RayControl::Clip(toi)
                }
                None => RayControl::Continue,
            }
        });
        hits += usize::from(best.is_some());
    }
    hits
}

/// As `cast_all_proxima`, with the batch traversal (`visit_rays`, several
/// rays in flight): same leaf test, same answers.
fn cast_all_proxima_batch(bvh: &StaticBvh, boxes: &[Aabb], rays: &[Ray], best: &mut Vec<Option<Real>>) -> usize {
    best.clear();
    best.resize(rays.len(), None);
    bvh.visit_rays(rays, |i, id, _entry| {
        let pre = PrecomputedRay::new(&rays[i]);
        let clipped = PrecomputedRay { max_toi: best[i].unwrap_or(rays[i].max_toi()), ..pre };
        match ray_aabb_interval(&clipped, &boxes[id as usize]) {
            Some(RayInterval { toi_enter: toi, .. }) => {
                best[i] = Some(toi);
                RayControl::Clip(toi)
            }
            None => RayControl::Continue,
        }
    });
    best.iter().filter(|b| b.is_some()).count()
}

fn cast_all_parry(bvh: &Bvh, boxes: &[Aabb], rays: &[Ray]) -> usize {
    let mut hits = 0;
    for ray in rays {
        let pray = parry3d::query::Ray::new(convert::pt(ray.origin()), convert::vec(ray.dir()));
        let pre = PrecomputedRay::new(ray);
        let hit = bvh.cast_ray(&pray, ray.max_toi(), |leaf, best| {
            let clipped = PrecomputedRay { max_toi: best, ..pre };
            ray_aabb_interval(&clipped, &boxes[leaf as usize]).map(|i| i.toi_enter)
        });
        hits += usize::from(hit.is_some());
    }
    hits
}

fn rays_bench(c: &mut Criterion) {
    for (n, name) in [(10_000, "10k"), (100_000, "100k"), (1_000_000, "1m")] {
        let boxes = scene::boxes(n, false, SEED);
        let rays = rays(n);
        let mut ours = StaticBvh::build(&boxes);
        let parry = Bvh::from_leaves(BvhBuildStrategy::Binned, &parry_leaves(&boxes));
        let mut best = Vec::new();
        let (a, b) = (cast_all_proxima(&ours, &boxes, &rays), cast_all_parry(&parry, &boxes, &rays));
        assert_eq!(a, b, "both trees find the same number of hits");
        assert_eq!(a, cast_all_proxima_batch(&ours, &boxes, &rays, &mut best));
        eprintln!("static_bvh: rays_{name}: {a} of {RAYS} rays hit");
        let mut g = c.benchmark_group(format!("static_bvh/rays_{name}"));
        g.sample_size(10).throughput(Throughput::Elements(RAYS as u64));
        g.bench_function("proxima", |b| b.iter(|| cast_all_proxima(&ours, &boxes, black_box(&rays))));
        g.bench_function("proxima_batch", |b| {
            b.iter(|| cast_all_proxima_batch(&ours, &boxes, black_box(&rays), &mut best))
        });
        if n == 100_000 {
            for (level, label) in [(SimdLevel::Sse2, "proxima_sse2"), (SimdLevel::Scalar, "proxima_scalar")] {
                if ours.set_simd_level(level) == level {
                    g.bench_function(label, |b| b.iter(|| cast_all_proxima(&ours, &boxes, black_box(&rays))));
                }
            }
            ours.set_simd_level(SimdLevel::detect());
        }
        g.bench_function("parry3d", |b| b.iter(|| cast_all_parry(&parry, &boxes, black_box(&rays))));
        g.finish();
    }
}

/// Number of boxes in the kernel benchmark (4,096 packs of 8).
const KERNEL_BOXES: usize = 32_768;

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn sweep_avx(rays: &[PrecomputedRay], packs: &[AabbX8]) {
    for ray in rays {
        for p in packs {
            // SAFETY: this function is only called after checking AVX.
            black_box(unsafe { proxima::narrowphase::kernels::cast_ray_aabb_x8_avx(ray, p, ray.max_toi) });
        }
    }
}

fn kernel(c: &mut Criterion) {
    let boxes = scene::boxes(KERNEL_BOXES, false, SEED);
    let packs8: Vec<AabbX8> = boxes.chunks(8).map(AabbX8::from_boxes).collect();
    let packs4: Vec<AabbX4> = boxes.chunks(4).map(AabbX4::from_boxes).collect();
    let rays: Vec<PrecomputedRay> = rays(KERNEL_BOXES).iter().take(4).map(PrecomputedRay::new).collect();
    let mut g = c.benchmark_group("static_bvh/kernel");
    g.throughput(Throughput::Elements((KERNEL_BOXES * rays.len()) as u64));
    g.bench_function("scalar_ray_aabb_interval", |b| {
        b.iter(|| {
            for ray in &rays {
                for aabb in &boxes {
                    black_box(ray_aabb_interval(ray, aabb));
                }
            }
        })
    });
    g.bench_function("x8_portable", |b| {
        b.iter(|| {
            for ray in &rays {
                for p in &packs8 {
                    black_box(cast_ray_aabb_lanes_scalar(ray, p, ray.max_toi));
                }
            }
        })
    });
    #[cfg(target_arch = "x86_64")]
    {
        g.bench_function("x4_sse2", |b| {
            b.iter(|| {
                for ray in &rays {
                    for p in &packs4 {
                        black_box(proxima::narrowphase::kernels::cast_ray_aabb_x4_sse2(ray, p, ray.max_toi));
                    }
                }
            })
        });
        g.bench_function("x8_sse2", |b| {
            b.iter(|| {
                for ray in &rays {
                    for p in &packs8 {
                        black_box(proxima::narrowphase::kernels::cast_ray_aabb_x8_sse2(ray, p, ray.max_toi));
                    }
                }
            })
        });
        if SimdLevel::Avx.is_available() {
            // SAFETY: AVX is available (checked just above).
            g.bench_function("x8_avx", |b| b.iter(|| unsafe { sweep_avx(&rays, &packs8) }));
        }
    }
    let _ = &packs4;
    g.bench_function(BenchmarkId::new("x8_dispatch", format!("{:?}", SimdLevel::detect())), |b| {
        b.iter(|| {
            for ray in &rays {
                for p in &packs8 {
                    black_box(cast_ray_aabb_x8(ray, p, ray.max_toi));
                }
            }
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = kernel, build, rays_bench
}
criterion_main!(benches);
