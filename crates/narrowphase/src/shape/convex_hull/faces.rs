//! From the triangle hull to polygon faces: coplanar triangles merged, then
//! vertices that no longer separate three faces dropped.

use super::build::{Tri, V3};

/// The polygon hull, in f64 and in the input's numbering.
pub(super) struct Polygons {
    /// Input indices of the hull's vertices, ascending.
    pub(super) vertex_ids: Vec<u32>,
    /// Vertex loops CCW seen from outside, indexing `vertex_ids`.
    pub(super) loops: Vec<Vec<u32>>,
    /// Unit outward normal of each loop.
    pub(super) normals: Vec<V3>,
}

/// Merges adjacent triangles whose vertices all lie within `tol` of a seed
/// triangle's plane (largest triangles seed first), as long as the merged
/// region stays a disc with one simple boundary loop; a region that does not
/// is left as its seed triangle alone.
pub(super) fn merge_coplanar(tris: &[Tri], pts: &[V3], tol: f64) -> Polygons {
    let n = tris.len();
    // Largest first (twice the area, squared), ties by index.
    // Largest first, ties by index: one u64 key per triangle, the complement
    // of the f32 bits of the squared doubled area (a positive f32 orders as
    // its bits) above the index.
    let mut order: Vec<u64> = tris
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let [a, b, c] = t.v.map(|i| pts[i as usize]);
            let area = (b - a).cross(&(c - a)).norm_squared() as f32;
            (u64::from(!area.to_bits()) << 32) | i as u64
        })
        .collect();
    order.sort_unstable();
    let mut group = vec![u32::MAX; n];
    let mut next_of = vec![u32::MAX; pts.len()];
    let mut mark = vec![u32::MAX; pts.len()];
    let mut loops = Vec::new();
    let mut normals = Vec::new();
    let mut members = Vec::new();
    for seed in order.iter().map(|&k| k as u32) {
        if group[seed as usize] != u32::MAX {
            continue;
        }
        let g = loops.len() as u32;
        let (normal, offset) = (tris[seed as usize].normal, tris[seed as usize].offset);
        members.clear();
        members.push(seed);
        group[seed as usize] = g;
        let mut k = 0;
        while k < members.len() {
            let m = members[k] as usize;
            k += 1;
            for &nb in &tris[m].adj {
                let t = &tris[nb as usize];
                let on_plane = t.v.iter().all(|&i| (normal.dot(&pts[i as usize]) - offset).abs() <= tol);
                if group[nb as usize] == u32::MAX && normal.dot(&t.normal) > 0.0 && on_plane {
                    group[nb as usize] = g;
                    members.push(nb);
                }
            }
        }
        let boundary = boundary_loop(tris, &members, &group, g, &mut next_of, &mut mark);
        let lp = match boundary {
            Some(lp) => lp,
            None => {
                for &m in &members[1..] {
                    group[m as usize] = u32::MAX;
                }
                tris[seed as usize].v.to_vec()
            }
        };
        normals.push(newell_normal(&lp, pts).unwrap_or(normal));
        loops.push(lp);
    }
    drop_two_face_vertices(&mut loops, pts.len());
    renumber(loops, normals, pts.len())
}

/// The boundary of the triangles `members` (all in group `g`) as one simple
/// loop of input vertex ids, or `None` when it is not one.
fn boundary_loop(
    tris: &[Tri],
    members: &[u32],
    group: &[u32],
    g: u32,
    next_of: &mut [u32],
    mark: &mut [u32],
) -> Option<Vec<u32>> {
    if members.len() == 1 {
        return Some(tris[members[0] as usize].v.to_vec());
    }
    let mut count = 0;
    let mut first = u32::MAX;
    for &m in members {
        let t = &tris[m as usize];
        for e in 0..3 {
            if group[t.adj[e] as usize] != g {
                let (a, b) = (t.v[e], t.v[(e + 1) % 3]);
                if mark[a as usize] == g {
                    return None; // two boundary edges leave `a`: pinched
                }
                mark[a as usize] = g;
                next_of[a as usize] = b;
                first = a;
                count += 1;
            }
        }
    }
    let mut lp = Vec::with_capacity(count);
    let mut v = first;
    loop {
        lp.push(v);
        v = next_of[v as usize];
        if v == first || lp.len() > count || mark[v as usize] != g {
            break;
        }
    }
    (v == first && lp.len() == count).then_some(lp)
}

/// Newell's normal of a polygon (the area-weighted normal: Sutherland,
/// Sproull, Schumacker, 1974), unit; `None` for a zero area.
fn newell_normal(lp: &[u32], pts: &[V3]) -> Option<V3> {
    let mut n = V3::zeros();
    let o = pts[lp[0] as usize];
    for k in 1..lp.len() - 1 {
        n += (pts[lp[k] as usize] - o).cross(&(pts[lp[k + 1] as usize] - o));
    }
    let len = n.norm();
    (len > 0.0).then(|| n / len)
}

/// A vertex of a convex polyhedron meets at least three faces; one that
/// meets two lies on their common edge (a point on an edge of the hull that
/// became a vertex before the edge's ends did) and is removed from both
/// loops, unless that would leave one with fewer than three vertices.
fn drop_two_face_vertices(loops: &mut [Vec<u32>], n_pts: usize) {
    let mut faces_of = vec![(0u32, [u32::MAX; 2]); n_pts];
    for (f, lp) in loops.iter().enumerate() {
        for &v in lp {
            let e = &mut faces_of[v as usize];
            if (e.0 as usize) < 2 {
                e.1[e.0 as usize] = f as u32;
            }
            e.0 += 1;
        }
    }
    for (v, (count, [f, g])) in faces_of.into_iter().enumerate() {
        if count == 2 && loops[f as usize].len() > 3 && loops[g as usize].len() > 3 {
            loops[f as usize].retain(|&x| x as usize != v);
            loops[g as usize].retain(|&x| x as usize != v);
        }
    }
}

/// Keeps the vertices the loops use, numbered in input order.
fn renumber(mut loops: Vec<Vec<u32>>, normals: Vec<V3>, n_pts: usize) -> Polygons {
    let mut new_id = vec![u32::MAX; n_pts];
    for lp in &loops {
        for &v in lp {
            new_id[v as usize] = 0;
        }
    }
    let mut vertex_ids = Vec::new();
    for (i, id) in new_id.iter_mut().enumerate() {
        if *id == 0 {
            *id = vertex_ids.len() as u32;
            vertex_ids.push(i as u32);
        }
    }
    for lp in &mut loops {
        for v in lp.iter_mut() {
            *v = new_id[*v as usize];
        }
        // Each loop starts at its least vertex: the same hull from the same
        // vertices in another order of construction reads the same.
        let first = (0..lp.len()).min_by_key(|&k| lp[k]).unwrap_or(0);
        lp.rotate_left(first);
    }
    Polygons { vertex_ids, loops, normals }
}
