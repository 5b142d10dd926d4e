//! From the triangle hull to polygon faces: coplanar triangles merged, then
//! vertices that no longer separate three faces dropped.

use super::build::{Tri, V3};

/// The polygon hull, in f64 and in the input's numbering.
pub(super) struct Polygons {
    /// Input indices of the hull's vertices, ascending.
    pub(super) vertex_ids: Vec<u32>,
    /// Vertex loops CCW seen from outside, indexing `vertex_ids`, one after
    /// another: loop `f` is `loop_vertices[loop_start[f]..loop_start[f + 1]]`.
    pub(super) loop_vertices: Vec<u32>,
    /// Where each loop starts in `loop_vertices`, and its length at the end.
    pub(super) loop_start: Vec<u32>,
    /// Unit outward normal of each loop.
    pub(super) normals: Vec<V3>,
}

impl Polygons {
    /// The number of loops (faces).
    pub(super) fn len(&self) -> usize {
        self.normals.len()
    }

    /// Loop `f`.
    pub(super) fn loop_of(&self, f: usize) -> &[u32] {
        &self.loop_vertices[self.loop_start[f] as usize..self.loop_start[f + 1] as usize]
    }
}

/// Merges adjacent triangles whose vertices all lie within `tol` of a seed
/// triangle's plane (largest triangles seed first), as long as the merged
/// region stays a disc with one simple boundary loop; a region that does not
/// is left as its seed triangle alone.
pub(super) fn merge_coplanar(tris: &[Tri], pts: &[V3], tol: f64) -> Polygons {
    let n = tris.len();
    // Largest first (twice the area, squared), ties by index: one u64 key per
    // triangle, the complement of the f32 bits of the squared doubled area (a
    // positive f32 orders as its bits) above the index.
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
    // A loop bounds its triangles, so it has at most three vertices per
    // triangle: `3n` in all.
    let mut loop_vertices = Vec::with_capacity(3 * n);
    let mut loop_start = Vec::with_capacity(n + 1);
    loop_start.push(0);
    let mut normals = Vec::with_capacity(n);
    let mut members = Vec::new();
    for seed in order.iter().map(|&k| k as u32) {
        if group[seed as usize] != u32::MAX {
            continue;
        }
        let g = normals.len() as u32;
        let (normal, offset) = (tris[seed as usize].normal, tris[seed as usize].offset);
        members.clear();
        members.push(seed);
        group[seed as usize] = g;
        let mut k = 0;
        while k < members.len() {
            let m = members[k] as usize;
            k += 1;
            for (e, &nb) in tris[m].adj.iter().enumerate() {
                if group[nb as usize] != u32::MAX {
                    continue;
                }
                // The ends of the shared edge are a member's, within `tol` of
                // the plane already: the third vertex of `nb` is tested first,
                // as the one that can be off it.
                let t = &tris[nb as usize];
                let j = t.edge_back(tris[m].v[e], tris[m].v[(e + 1) % 3]);
                let on_plane = [(j + 2) % 3, j, (j + 1) % 3]
                    .iter()
                    .all(|&k| (normal.dot(&pts[t.v[k] as usize]) - offset).abs() <= tol);
                if normal.dot(&t.normal) > 0.0 && on_plane {
                    group[nb as usize] = g;
                    members.push(nb);
                }
            }
        }
        let start = loop_vertices.len();
        if !boundary_loop(tris, &members, &group, g, &mut next_of, &mut mark, &mut loop_vertices) {
            for &m in &members[1..] {
                group[m as usize] = u32::MAX;
            }
            loop_vertices.truncate(start);
            loop_vertices.extend_from_slice(&tris[seed as usize].v);
        }
        let lp = &loop_vertices[start..];
        normals.push(if lp.len() == 3 && lp == tris[seed as usize].v {
            // Newell's normal of the seed triangle alone is its own normal,
            // `(0 + n) / |n|`: the same but for a zero's sign.
            normal.map(|x| x + 0.0)
        } else {
            newell_normal(lp, pts).unwrap_or(normal)
        });
        loop_start.push(loop_vertices.len() as u32);
    }
    let mut polys = Polygons { vertex_ids: Vec::new(), loop_vertices, loop_start, normals };
    drop_two_face_vertices(&mut polys, pts.len());
    renumber(&mut polys, pts.len());
    polys
}

/// Appends to `out` the boundary of the triangles `members` (all in group
/// `g`) as one simple loop of input vertex ids, and returns true; returns
/// false, with some of the boundary appended, when it is not one loop.
fn boundary_loop(
    tris: &[Tri],
    members: &[u32],
    group: &[u32],
    g: u32,
    next_of: &mut [u32],
    mark: &mut [u32],
    out: &mut Vec<u32>,
) -> bool {
    if members.len() == 1 {
        out.extend_from_slice(&tris[members[0] as usize].v);
        return true;
    }
    let mut count = 0;
    let mut first = u32::MAX;
    for &m in members {
        let t = &tris[m as usize];
        for e in 0..3 {
            if group[t.adj[e] as usize] != g {
                let (a, b) = (t.v[e], t.v[(e + 1) % 3]);
                if mark[a as usize] == g {
                    return false; // two boundary edges leave `a`: pinched
                }
                mark[a as usize] = g;
                next_of[a as usize] = b;
                first = a;
                count += 1;
            }
        }
    }
    let start = out.len();
    let mut v = first;
    loop {
        out.push(v);
        v = next_of[v as usize];
        if v == first || out.len() - start > count || mark[v as usize] != g {
            break;
        }
    }
    v == first && out.len() - start == count
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
/// loops, unless that would leave one with fewer than three vertices (the
/// vertices are taken in input order, each seeing the loops as the ones
/// before it left them).
fn drop_two_face_vertices(polys: &mut Polygons, n_pts: usize) {
    let mut faces_of = vec![(0u32, [u32::MAX; 2]); n_pts];
    for f in 0..polys.len() {
        for &v in polys.loop_of(f) {
            let e = &mut faces_of[v as usize];
            if (e.0 as usize) < 2 {
                e.1[e.0 as usize] = f as u32;
            }
            e.0 += 1;
        }
    }
    let mut len: Vec<u32> = polys.loop_start.windows(2).map(|w| w[1] - w[0]).collect();
    let mut dropped = false;
    for e in faces_of.iter_mut() {
        let (count, [f, g]) = *e;
        if count == 2 && len[f as usize] > 3 && len[g as usize] > 3 {
            len[f as usize] -= 1;
            len[g as usize] -= 1;
            e.0 = u32::MAX;
            dropped = true;
        }
    }
    if !dropped {
        return;
    }
    // Close the gaps left in the flat loops.
    let mut write = 0;
    for f in 0..polys.len() {
        let (from, to) = (polys.loop_start[f] as usize, polys.loop_start[f + 1] as usize);
        polys.loop_start[f] = write as u32;
        for k in from..to {
            let v = polys.loop_vertices[k];
            if faces_of[v as usize].0 != u32::MAX {
                polys.loop_vertices[write] = v;
                write += 1;
            }
        }
    }
    let f = polys.len();
    polys.loop_start[f] = write as u32;
    polys.loop_vertices.truncate(write);
}

/// Keeps the vertices the loops use, numbered in input order.
fn renumber(polys: &mut Polygons, n_pts: usize) {
    let mut new_id = vec![u32::MAX; n_pts];
    for &v in &polys.loop_vertices {
        new_id[v as usize] = 0;
    }
    let vertex_ids = &mut polys.vertex_ids;
    for (i, id) in new_id.iter_mut().enumerate() {
        if *id == 0 {
            *id = vertex_ids.len() as u32;
            vertex_ids.push(i as u32);
        }
    }
    // Each loop starts at its least vertex (the numbering keeps the input
    // order, so the least either way): the same hull from the same vertices
    // in another order of construction reads the same.
    let mut renumbered = Vec::with_capacity(polys.loop_vertices.len());
    for f in 0..polys.len() {
        let lp = polys.loop_of(f);
        let first = (0..lp.len()).min_by_key(|&k| lp[k]).unwrap_or(0);
        renumbered.extend(lp[first..].iter().chain(&lp[..first]).map(|&v| new_id[v as usize]));
    }
    polys.loop_vertices = renumbered;
}
