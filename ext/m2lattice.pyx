# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The MaxMatch (M2) edit lattice of one sentence and its best edit sequence, as the NUS m2scorer 3.2 computes them,
in C.

The official scorer (levenshtein.py) builds the lattice of every minimum-cost token alignment of source and
hypothesis under two cost schemes (substitution 1 and 2), adds "transitive" arcs that merge consecutive edits (at most
max_unchanged_words unchanged tokens inside), weights the arcs per annotator (an arc equal to a gold edit: -len(E);
any other non-noop arc: its number of basic steps + 0.001 per copy of it in the edge list) and runs Bellman-Ford over
the edge list. Everything that decides its result is reproduced here exactly:

- the edge list E: the sorted union of both lattices' edges (an edge in both is listed twice), then the transitive arcs
  in the order the official Floyd-Warshall loop appends them (an arc that is later found shorter is appended again),
  then the removal of merged noop arcs, which skips the element after each removed one (so every other one of a run
  of merged noop arcs stays, with weight = its number of steps); len(E) is the gold weight;
- the transitive arcs without the cubic loop: the vertices are processed in lexicographic order, which is a
  topological order of the lattice, so when vertex k is processed the arcs into it are final and the arcs out of it
  are the basic edges only. Each arc into k (ordered by its start) is extended by each basic edge out of k (ordered by
  its end); the extension replaces the arc start -> end when it has strictly fewer steps and at most
  max_unchanged_words unchanged tokens, exactly the official test. The cost is the number of arcs times 3;
- the weights in the same float operations, the insertion-case pointer walk of set_weights included;
- Bellman-Ford over E in E's order, pass after pass, stopped at the first pass that changes nothing (the later
  passes of the official change nothing either), so the tie-breaking between equal-weight paths is the official's.

An arc start -> end covers source tokens [start.i, end.i) and hypothesis tokens [start.j, end.j); its edit strings
are those tokens joined by spaces (the official's merged strings are always exactly that), so an arc is stored as its
two vertices, its number of steps and its number of unchanged tokens (a noop arc: all its steps unchanged).

A lattice on which the official would run for hours (more than max_vertices vertices, or transitive arcs x vertices
over max_work: its closure and Bellman-Ford loops cost about that many dict operations) is not closed: best() then
runs a bounded search with the same objective (_best_bounded: a dynamic programme over (vertex, unchanged tokens in
the open edit, whether it changes anything), gold edits as explicit arcs), linear in vertices x max_unchanged_words.
Such a lattice keeps only what that search reads (not the tables of the closure), and the bytes its vertices, edges
and search states would need are counted from the cells first: over max_bytes nothing more is built (`needs`)."""
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.math cimport INFINITY
from cython.operator cimport dereference as deref
from libcpp.algorithm cimport sort
from libcpp.unordered_map cimport unordered_map
from libcpp.vector cimport vector

import numpy as np


cdef double EPSILON = 0.001

cdef inline uint64_t pair_key(int64_t u, int64_t w, int64_t nc):
    return <uint64_t>(u * nc + w)


cdef class Lattice:
    """The lattice, transitive arcs and edge list of one sentence (source and hypothesis as token id arrays; equal
    ids = equal tokens). best(...) gives the official best edit sequence for one annotator's gold edits."""
    cdef int n, m, W
    cdef int64_t nc
    cdef vector[int32_t] src, hyp
    cdef vector[int32_t] vidx          # cell -> vertex index (lexicographic rank) or -1
    cdef vector[int32_t] vcell         # vertex index -> cell
    # records: one per distinct edge (basic or transitive)
    cdef vector[int32_t] ru, rw, rhops, runch, rmult
    cdef vector[char] rbase
    # the final edge list E: record of each entry, in order
    cdef vector[int32_t] E
    cdef vector[vector[int32_t]] base_in, base_out   # per vertex: basic edge records in / out
    cdef public int64_t n_edges
    cdef public int64_t n_arcs
    cdef public bint exact            # the official's edge list was built (else best() uses the bounded search)
    cdef public int64_t needs         # bytes the lattice and its search would need, when over max_bytes (else 0)
    cdef int32_t nbase
    cdef int K

    def __cinit__(self, int32_t[::1] src not None, int32_t[::1] hyp not None, int max_unchanged_words,
                  int64_t max_vertices=2000, int64_t max_work=300000000, int64_t max_bytes=0):
        """max_bytes (0: no bound): when the vertices, edges and bounded-search states of a lattice too large to
        close would need more than that, nothing more is built: `needs` holds the bytes, and best() refuses."""
        cdef int n = src.shape[0], m = hyp.shape[0]
        cdef int W = m + 1
        cdef int64_t nc = <int64_t>(n + 1) * W
        cdef int i, j, k
        cdef int64_t c, p
        self.needs = 0
        self.exact = False
        self.n = n
        self.m = m
        self.W = W
        self.nc = nc
        self.src.resize(n)
        self.hyp.resize(m)
        for i in range(n):
            self.src[i] = src[i]
        for j in range(m):
            self.hyp[j] = hyp[j]
        # --- the two Levenshtein lattices: bit 1 diagonal (sub/noop), 2 deletion, 4 insertion --------------------
        cdef vector[int32_t] D
        cdef vector[char] B1, B2, R1, R2
        D.resize(nc)
        B1.resize(nc, 0)
        B2.resize(nc, 0)
        self._levenshtein(D, B1, 1)
        self._levenshtein(D, B2, 2)
        R1.resize(nc, 0)
        R2.resize(nc, 0)
        self._reach(B1, R1)
        self._reach(B2, R2)
        cdef int64_t count = 0, edges = 0, states
        for c in range(nc):
            if R1[c] or R2[c]:
                count += 1
                i = <int>(c // W)
                j = <int>(c % W)
                if j < m and ((R1[c + 1] and B1[c + 1] & 4) or (R2[c + 1] and B2[c + 1] & 4)):
                    edges += 1
                if i < n and ((R1[c + W] and B1[c + W] & 2) or (R2[c + W] and B2[c + W] & 2)):
                    edges += 1
                if i < n and j < m and ((R1[c + W + 1] and B1[c + W + 1] & 1) or (R2[c + W + 1] and B2[c + W + 1] & 1)):
                    edges += 1
        # a lattice too large to close is searched by _best_bounded: per vertex its cell, its basic edges in and out
        # (two vectors of at most 3, 56 bytes each with the allocator's overhead) and S search states of 17 bytes;
        # per basic edge its record (21 bytes)
        if count > max_vertices:
            states = 1 + 2 * ((max_unchanged_words if max_unchanged_words >= 1 else 1) + 1)
            self.needs = count * (4 + 2 * 56 + states * 17) + edges * 21
            if 0 < max_bytes < self.needs:
                return
            self.needs = 0
        self.vidx.resize(nc, -1)
        self.vcell.reserve(count)
        self.ru.reserve(edges)
        self.rw.reserve(edges)
        self.rhops.reserve(edges)
        self.runch.reserve(edges)
        self.rmult.reserve(edges)
        self.rbase.reserve(edges)
        cdef int32_t nv = 0
        for c in range(nc):
            if R1[c] or R2[c]:
                self.vidx[c] = nv
                self.vcell.push_back(<int32_t>c)
                nv += 1
        cdef bint closing = nv <= max_vertices     # the transitive arcs will be built (else their tables are not)
        # --- basic edges, sorted by (start cell, end cell), one entry per lattice holding it ----------------------
        cdef unordered_map[uint64_t, int32_t] recof
        cdef vector[vector[int32_t]] incoming   # per vertex: records ending there (basic first, then arcs)
        if closing:
            incoming.resize(nv)
        self.base_in.resize(nv)
        self.base_out.resize(nv)
        cdef int32_t r, mult
        cdef int64_t w
        cdef int step, bit
        cdef int32_t unch
        cdef int64_t succ[3]
        cdef int bits[3]
        cdef vector[int32_t] base_entries
        for k in range(nv):
            c = self.vcell[k]
            i = <int>(c // W)
            j = <int>(c % W)
            # successors in cell order: (i, j+1) insertion, (i+1, j) deletion, (i+1, j+1) diagonal
            succ[0] = c + 1 if j < m else -1
            bits[0] = 4
            succ[1] = c + W if i < n else -1
            bits[1] = 2
            succ[2] = c + W + 1 if (i < n and j < m) else -1
            bits[2] = 1
            for step in range(3):
                w = succ[step]
                if w < 0:
                    continue
                bit = bits[step]
                mult = 0
                if R1[w] and (B1[w] & bit):
                    mult += 1
                if R2[w] and (B2[w] & bit):
                    mult += 1
                if mult == 0:
                    continue
                r = <int32_t>self.ru.size()
                self.ru.push_back(<int32_t>c)
                self.rw.push_back(<int32_t>w)
                self.rhops.push_back(1)
                unch = 0
                if bit == 1 and self.src[i] == self.hyp[j]:
                    unch = 1
                self.runch.push_back(unch)
                self.rmult.push_back(0)
                self.rbase.push_back(1)
                self.base_in[self.vidx[w]].push_back(r)
                self.base_out[k].push_back(r)
                if closing:
                    recof[pair_key(c, w, nc)] = r
                    incoming[self.vidx[w]].push_back(r)
                    for _ in range(mult):
                        base_entries.push_back(r)
        self.K = max_unchanged_words
        self.nbase = <int32_t>self.ru.size()
        if not closing:
            return
        # --- transitive arcs, in the official append order ---------------------------------------------------------
        cdef vector[int32_t] events
        cdef vector[int64_t] order
        cdef vector[int32_t]* inc
        cdef int32_t rin, rb, hops, rx
        cdef int64_t vi, vk, vj
        cdef unordered_map[uint64_t, int32_t].iterator it
        cdef vector[int32_t] outb
        for k in range(nv):
            vk = self.vcell[k]
            inc = &incoming[k]
            if inc.size() == 0:
                continue
            # basic edges out of vk, by end cell
            outb.clear()
            i = <int>(vk // W)
            j = <int>(vk % W)
            for step in range(3):
                if step == 0:
                    w = vk + 1 if j < m else -1
                elif step == 1:
                    w = vk + W if i < n else -1
                else:
                    w = vk + W + 1 if (i < n and j < m) else -1
                if w < 0:
                    continue
                it = recof.find(pair_key(vk, w, nc))
                if it != recof.end() and self.rbase[<int32_t>deref(it).second]:
                    outb.push_back(<int32_t>deref(it).second)
            if outb.size() == 0:
                continue
            # arcs into vk by start cell (key: start cell * 2^31 + position, stable)
            order.clear()
            for r in range(<int32_t>inc.size()):
                order.push_back(<int64_t>self.ru[deref(inc)[r]] * 2147483648 + r)
            sort(order.begin(), order.end())
            for p in range(<int64_t>order.size()):
                rin = deref(inc)[<int32_t>(order[p] % 2147483648)]
                vi = self.ru[rin]
                for step in range(<int>outb.size()):
                    rb = outb[step]
                    vj = self.rw[rb]
                    hops = self.rhops[rin] + 1
                    it = recof.find(pair_key(vi, vj, nc))
                    if it != recof.end():
                        rx = deref(it).second
                        if self.rhops[rx] <= hops:
                            continue
                    else:
                        rx = -1
                    unch = self.runch[rin] + self.runch[rb]
                    if unch > max_unchanged_words:
                        continue
                    if rx < 0:
                        rx = <int32_t>self.ru.size()
                        self.ru.push_back(<int32_t>vi)
                        self.rw.push_back(<int32_t>vj)
                        self.rhops.push_back(hops)
                        self.runch.push_back(unch)
                        self.rmult.push_back(0)
                        self.rbase.push_back(0)
                        recof[pair_key(vi, vj, nc)] = rx
                        incoming[self.vidx[vj]].push_back(rx)
                    else:
                        self.rhops[rx] = hops
                        self.runch[rx] = unch
                    events.push_back(rx)
                    if <int64_t>events.size() * nv > max_work:
                        self._truncate()
                        return
        self.n_arcs = <int64_t>events.size()
        # --- E, and the removal of merged noop arcs (each removal skips the next element) -------------------------
        self.E.reserve(base_entries.size() + events.size())
        for p in range(<int64_t>base_entries.size()):
            self.E.push_back(base_entries[p])
        cdef int64_t ne = <int64_t>events.size()
        p = 0
        while p < ne:
            r = events[p]
            if self.runch[r] == self.rhops[r]:          # a merged noop arc (dist > 1): removed, the next one kept
                if self.rmult[r] < 0:
                    raise RuntimeError("merged noop arc listed twice")
                self.rmult[r] = -1                       # marks it removed
                if p + 1 < ne:
                    self.E.push_back(events[p + 1])
                p += 2
            else:
                self.E.push_back(r)
                p += 1
        for p in range(<int64_t>self.E.size()):
            r = self.E[p]
            if self.rmult[r] < 0:
                # a removed noop arc kept as the element after another removal: the official's edits[] lacks it
                # and the next removal pass reaches it... only possible if it was listed twice
                raise RuntimeError("removed arc kept in the edge list")
            self.rmult[r] += 1
        self.n_edges = <int64_t>self.E.size()
        self.exact = True

    cdef void _truncate(self):
        """Drop the transitive arcs (too many): keep the basic edges for the bounded search."""
        self.ru.resize(self.nbase)
        self.rw.resize(self.nbase)
        self.rhops.resize(self.nbase)
        self.runch.resize(self.nbase)
        self.rmult.resize(self.nbase)
        self.rbase.resize(self.nbase)
        self.n_arcs = -1

    cdef void _levenshtein(self, vector[int32_t]& D, vector[char]& B, int cost_sub):
        cdef int n = self.n, m = self.m, W = self.W
        cdef int i, j
        cdef int32_t dele, ins, sub, mn
        cdef char b
        D[0] = 0
        for i in range(1, n + 1):
            D[i * W] = i
            B[i * W] = 2
        for j in range(1, m + 1):
            D[j] = j
            B[j] = 4
        for i in range(1, n + 1):
            for j in range(1, m + 1):
                dele = D[(i - 1) * W + j] + 1
                ins = D[i * W + j - 1] + 1
                if self.src[i - 1] == self.hyp[j - 1]:
                    sub = D[(i - 1) * W + j - 1]
                else:
                    sub = D[(i - 1) * W + j - 1] + cost_sub
                mn = sub
                if dele < mn:
                    mn = dele
                if ins < mn:
                    mn = ins
                b = 0
                if sub == mn:
                    b |= 1
                if dele == mn:
                    b |= 2
                if ins == mn:
                    b |= 4
                D[i * W + j] = mn
                B[i * W + j] = b

    cdef void _reach(self, vector[char]& B, vector[char]& R):
        cdef int W = self.W
        cdef int64_t c
        R[self.nc - 1] = 1
        c = self.nc - 1
        while c >= 0:
            if R[c]:
                if B[c] & 1:
                    R[c - W - 1] = 1
                if B[c] & 2:
                    R[c - W] = 1
                if B[c] & 4:
                    R[c - 1] = 1
            c -= 1

    def sizes(self):
        """(vertices, distinct edges, entries of E, transitive arcs appended)."""
        return self.vcell.size(), self.ru.size(), self.E.size(), self.n_arcs

    def best(self, gold_spans, corrections):
        """The official best edit sequence for one annotator. gold_spans: (start, end, orig_matches) per gold edit
        (orig_matches: its original string equals the source tokens [start, end) joined); corrections: per gold
        edit, the list of its corrections as token id arrays (None: matches no hypothesis span). Returns the
        non-noop arcs of the path from the end back to the start, as (src_start, src_end, hyp_start, hyp_end)."""
        if self.needs:
            raise MemoryError(f"the lattice would need {self.needs:,} bytes, over its max_bytes")
        if not self.exact:
            return self._best_bounded(gold_spans, corrections)
        cdef int W = self.W
        cdef int64_t nE = <int64_t>self.E.size()
        cdef int32_t nr = <int32_t>self.ru.size()
        cdef double L = <double>nE
        cdef vector[double] wt
        wt.resize(nr)
        cdef int32_t r, q
        cdef int t
        cdef int64_t p
        cdef int passes = 0
        cdef bint changed = True
        cdef double d
        cdef int32_t u, v
        cdef bint hit
        for r in range(nr):
            if self.rmult[r] <= 0:
                continue
            wt[r] = <double>self.rhops[r]
            if self.runch[r] != self.rhops[r]:
                for t in range(self.rmult[r]):
                    wt[r] = wt[r] + EPSILON
        # gold keys (s, e) -> their gold edits, in order
        keys = {}
        for g, (s, e, ok) in enumerate(gold_spans):
            keys.setdefault((s, e), []).append(g)
        if keys:
            # entries of E per gold key, sorted by edge (start cell, end cell), copies adjacent
            members = {}
            for p in range(nE):
                r = self.E[p]
                key = (self.ru[r] // W, self.rw[r] // W)
                if key in keys:
                    members.setdefault(key, []).append((self.ru[r], self.rw[r], r))
            for key, mem in members.items():
                mem.sort()
                recs = [x[2] for x in mem]
                for r in set(recs):
                    wt[r] = <double>self.rhops[r]
                golds = keys[key]
                if key[0] == key[1]:
                    self._weights_insertion(wt, recs, golds, gold_spans, corrections, L)
                else:
                    for r in recs:
                        hit = False
                        for g in golds:
                            if self._matches(r, gold_spans[g], corrections[g]):
                                hit = True
                                break
                        if hit:
                            wt[r] = -L
                        elif self.runch[r] != self.rhops[r]:
                            wt[r] = wt[r] + EPSILON
        # Bellman-Ford over E in order, until a pass changes nothing
        cdef int32_t nv = <int32_t>self.vcell.size()
        cdef vector[double] dist
        cdef vector[int32_t] path
        dist.resize(nv, INFINITY)
        path.resize(nv, -1)
        dist[0] = 0.0
        cdef vector[int32_t] eu, ew
        cdef vector[double] ewt
        eu.resize(nE)
        ew.resize(nE)
        ewt.resize(nE)
        for p in range(nE):
            r = self.E[p]
            eu[p] = self.vidx[self.ru[r]]
            ew[p] = self.vidx[self.rw[r]]
            ewt[p] = wt[r]
        while changed and passes < nv - 1:
            changed = False
            passes += 1
            for p in range(nE):
                d = dist[eu[p]] + ewt[p]
                v = ew[p]
                if d < dist[v]:
                    dist[v] = d
                    path[v] = self.E[p]
                    changed = True
        # backtrack from the last vertex
        out = []
        v = nv - 1
        while path[v] >= 0:
            r = path[v]
            if self.runch[r] != self.rhops[r]:
                out.append((self.ru[r] // W, self.rw[r] // W, self.ru[r] % W, self.rw[r] % W))
            v = self.vidx[self.ru[r]]
        return out

    cdef bint _matches(self, int32_t r, span, cors):
        """Edge r equals a gold edit (its span is r's by construction): same original string, a correction equal to
        the hypothesis tokens of r."""
        if not span[2]:
            return False
        cdef int W = self.W
        cdef int j0 = self.ru[r] % W, j1 = self.rw[r] % W
        cdef int t
        for cor in cors:
            if cor is None or len(cor) != j1 - j0:
                continue
            for t in range(j1 - j0):
                if cor[t] != self.hyp[j0 + t]:
                    break
            else:
                return True
        return False

    cdef void _weights_insertion(self, vector[double]& wt, list recs, list golds, gold_spans, corrections,
                                 double L):
        """set_weights' pointer walk over the insertion arcs at one source position (recs: E's entries there,
        sorted, copies included), from both ends towards the middle."""
        cdef int lptr = 0, rptr = len(recs) - 1, cur = 0
        cdef int g_lptr = 0, g_rptr = len(golds) - 1
        cdef int gi, r, rc
        cdef bint found
        while lptr <= rptr:
            found = False
            r = recs[cur]
            if cur == lptr:
                seq = range(g_lptr, g_rptr + 1)
            else:
                seq = reversed(range(g_lptr, g_rptr + 1))
            for gi in seq:
                g = golds[gi]
                if self._matches(r, gold_spans[g], corrections[g]):
                    found = True
                    wt[r] = -L
                    if cur == lptr:
                        g_lptr = gi + 1
                    else:
                        g_rptr = gi - 1
                    break
            if not found:
                wt[r] = wt[r] + EPSILON          # insertion arcs are never noop
            if found:
                rc = recs[cur]
                if cur == lptr:
                    lptr += 1
                    while lptr < len(recs) and self.ru[recs[lptr]] != self.rw[rc]:
                        wt[recs[lptr]] = wt[recs[lptr]] + EPSILON
                        lptr += 1
                    cur = lptr
                else:
                    rptr -= 1
                    while rptr >= 0 and self.rw[recs[rptr]] != self.ru[rc]:
                        wt[recs[rptr]] = wt[recs[rptr]] + EPSILON
                        rptr -= 1
                    cur = rptr
            else:
                if cur == lptr:
                    lptr += 1
                    cur = rptr
                else:
                    rptr -= 1
                    cur = lptr

    def records(self):
        """Debugging: (start cell, end cell, steps, unchanged, copies in E) of every distinct edge."""
        return [(self.ru[r], self.rw[r], self.rhops[r], self.runch[r], self.rmult[r]) for r in range(self.ru.size())]

    cdef int _min_noops(self, int64_t a, int64_t b):
        """The fewest unchanged tokens on a lattice path from cell a to cell b (-1: no path)."""
        cdef int W = self.W
        cdef int i0 = <int>(a // W), j0 = <int>(a % W), i1 = <int>(b // W), j1 = <int>(b % W)
        if i1 < i0 or j1 < j0 or self.vidx[a] < 0 or self.vidx[b] < 0:
            return -1
        cdef int h = i1 - i0 + 1, w = j1 - j0 + 1
        cdef vector[int32_t] best
        best.resize(h * w, 1 << 30)
        best[0] = 0
        cdef int i, j, t
        cdef int64_t c
        cdef int32_t r
        cdef unordered_map[uint64_t, int32_t].iterator it
        for i in range(h):
            for j in range(w):
                if best[i * w + j] >= (1 << 30):
                    continue
                c = <int64_t>(i0 + i) * W + j0 + j
                for t in range(3):
                    if t == 0 and j + 1 < w:
                        r = self._base_rec(c, c + 1)
                        if r >= 0 and best[i * w + j + 1] > best[i * w + j]:
                            best[i * w + j + 1] = best[i * w + j]
                    elif t == 1 and i + 1 < h:
                        r = self._base_rec(c, c + W)
                        if r >= 0 and best[(i + 1) * w + j] > best[i * w + j]:
                            best[(i + 1) * w + j] = best[i * w + j]
                    elif t == 2 and i + 1 < h and j + 1 < w:
                        r = self._base_rec(c, c + W + 1)
                        if r >= 0 and best[(i + 1) * w + j + 1] > best[i * w + j] + self.runch[r]:
                            best[(i + 1) * w + j + 1] = best[i * w + j] + self.runch[r]
        t = best[h * w - 1]
        return -1 if t >= (1 << 30) else t

    cdef int32_t _base_rec(self, int64_t a, int64_t b):
        cdef int32_t k = self.vidx[b]
        cdef int32_t r
        if k < 0 or self.vidx[a] < 0:
            return -1
        for r in self.base_in[k]:
            if self.ru[r] == a:
                return r
        return -1

    def _best_bounded(self, gold_spans, corrections):
        """The bounded search used when the official edge list is too large: the same objective (most gold edits,
        then fewest alignment steps, then fewest edits; an edit holds at most max_unchanged_words unchanged tokens)
        by dynamic programming over (vertex, unchanged tokens so far in the open edit, whether it changes anything),
        with gold arcs added explicitly. Integer costs: a step 1000, an edit 1, a gold edit -10^12."""
        cdef int W = self.W, K = self.K
        cdef int32_t nv = <int32_t>self.vcell.size()
        cdef int Keff = K if K >= 1 else 1
        cdef int S = 1 + 2 * (Keff + 1)       # state 0: between edits; 1 + 2k + f: inside an edit
        cdef int64_t INF = 1 << 62
        cdef int64_t GOLD = -1000000000000
        cdef vector[int64_t] cost
        cdef vector[int64_t] back          # previous state (vertex * S + state), -1 none
        cdef vector[char] kind             # 0 step, 1 close, 2 gold arc
        cost.resize(<int64_t>nv * S, INF)
        back.resize(<int64_t>nv * S, -1)
        kind.resize(<int64_t>nv * S, 0)
        # gold arcs into each vertex
        gold_in = {}
        cdef int64_t a, b
        cdef int s_, e_, j0, ln, t
        for g in range(len(gold_spans)):
            s_, e_, ok = gold_spans[g]
            if not ok:
                continue
            for cor in corrections[g]:
                if cor is None:
                    continue
                ln = len(cor)
                for j0 in range(self.m - ln + 1):
                    a = <int64_t>s_ * W + j0
                    if self.vidx[a] < 0:
                        continue
                    for t in range(ln):
                        if cor[t] != self.hyp[j0 + t]:
                            break
                    else:
                        b = <int64_t>e_ * W + j0 + ln
                        if b < self.nc and self.vidx[b] >= 0 and a != b:
                            mn = self._min_noops(a, b)
                            if self._base_rec(a, b) >= 0 or 0 <= mn <= K:
                                gold_in.setdefault(self.vidx[b], []).append(self.vidx[a])
        cdef int32_t v, u, r
        cdef int k, f, nk, nf, st
        cdef int64_t c, here, nxt, cst
        cost[0] = 0
        for v in range(nv):
            # close the open edits ending here, then the gold arcs into here
            for k in range(Keff + 1):
                for f in range(2):
                    st = 1 + 2 * k + f
                    here = <int64_t>v * S + st
                    if cost[here] >= INF:
                        continue
                    cst = cost[here] + (1 if f else 0)
                    if cst < cost[<int64_t>v * S]:
                        cost[<int64_t>v * S] = cst
                        back[<int64_t>v * S] = here
                        kind[<int64_t>v * S] = 1
            if v in gold_in:
                for u in gold_in[v]:
                    if cost[<int64_t>u * S] >= INF:
                        continue
                    cst = cost[<int64_t>u * S] + GOLD
                    if cst < cost[<int64_t>v * S]:
                        cost[<int64_t>v * S] = cst
                        back[<int64_t>v * S] = <int64_t>u * S
                        kind[<int64_t>v * S] = 2
            # steps out of v: open an edit from state 0, or extend an open one
            c = self.vcell[v]
            for r in self.base_out[v]:
                u = self.vidx[self.rw[r]]
                for st in range(S):
                    here = <int64_t>v * S + st
                    if cost[here] >= INF:
                        continue
                    if st == 0:
                        nk = self.runch[r]
                        nf = 0 if self.runch[r] else 1
                    else:
                        k = (st - 1) // 2
                        f = (st - 1) % 2
                        nk = k + self.runch[r]
                        nf = f | (0 if self.runch[r] else 1)
                        if nk > K:
                            continue
                    nxt = <int64_t>u * S + 1 + 2 * nk + nf
                    cst = cost[here] + 1000
                    if cst < cost[nxt]:
                        cost[nxt] = cst
                        back[nxt] = here
                        kind[nxt] = 0
        # backtrack from the end, between edits
        out = []
        cdef int64_t cur = <int64_t>(nv - 1) * S, end_state, prev
        cdef int64_t vend
        while cur > 0 and back[cur] >= 0:
            if kind[cur] == 2:
                prev = back[cur]
                a = self.vcell[prev // S]
                b = self.vcell[cur // S]
                out.append((a // W, b // W, a % W, b % W))
                cur = prev
            else:
                end_state = back[cur]
                f = (end_state % S - 1) % 2
                vend = cur // S
                prev = end_state
                while prev % S != 0:
                    prev = back[prev]
                if f:
                    a = self.vcell[prev // S]
                    b = self.vcell[vend]
                    out.append((a // W, b // W, a % W, b % W))
                cur = prev
        return out
