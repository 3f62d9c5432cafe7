# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Integer statistics of text-overlap metrics over pairs of character strings (one token per code point): the n-gram
counts of BLEU and ROUGE-1/2, the LCS of ROUGE-L and the alignment counts of METEOR (peet_fast.metrics.overlap turns
them into the metric values, with the same float operations as before).

n-grams are ranked exactly (no hashing): the code points of hyp + ref get dense ranks by sorting, and the n-gram
starting at i gets the dense rank of the pair (rank of its (n-1)-gram at i, rank of the code point at i + n - 1),
radix-sorted, so two n-grams have the same rank exactly when they are the same substring. Counting ranks in hyp and in ref then gives
NLTK's clipped matches and rouge_chinese's set sizes. The LCS is ext/chardist's bit-parallel one."""
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libcpp.algorithm cimport sort
from libcpp.unordered_map cimport unordered_map
from libcpp.vector cimport vector

from peet_fast._ext.chardist cimport lcs_length

# columns of a pair's statistics (see pair_stats)
COLUMNS = ("hyp_len", "ref_len", "clip1", "clip2", "clip3", "clip4", "hyp1", "ref1", "shared1", "hyp2", "ref2",
           "shared2", "lcs", "meteor_matches", "meteor_chunks")


cdef struct Work:
    # scratch buffers reused from pair to pair (no allocation per pair once they have grown)
    vector[uint64_t]* keyed
    vector[int32_t]* rank1
    vector[int32_t]* rank
    vector[int32_t]* order
    vector[int32_t]* tmp
    vector[int32_t]* cnt
    vector[int32_t]* ch
    vector[int32_t]* cr


cdef void _codes(str s, vector[int32_t]& out):
    """Append the code points of s to out."""
    cdef Py_UCS4 c
    for c in s:
        out.push_back(<int32_t>c)


cdef Py_ssize_t _rank_codes(const int32_t* text, Py_ssize_t T, vector[uint64_t]& keyed, int32_t* rank) noexcept nogil:
    """Dense ranks of the code points text[0..T) in code-point order; returns the number of distinct ones."""
    cdef Py_ssize_t k, r = -1
    keyed.resize(T)
    for k in range(T):
        keyed[k] = ((<uint64_t><uint32_t>text[k]) << 32) | <uint64_t>k
    sort(keyed.begin(), keyed.end())
    for k in range(T):
        if k == 0 or (keyed[k] >> 32) != (keyed[k - 1] >> 32):
            r += 1
        rank[keyed[k] & 0xFFFFFFFFu] = <int32_t>r
    return r + 1


cdef Py_ssize_t _rank_pairs(Work* w, Py_ssize_t m, Py_ssize_t na, Py_ssize_t n) noexcept nogil:
    """Rank the n-grams at 0..m-1 from the (n-1)-gram ranks in w.rank (< na) and the code-point ranks in w.rank1:
    the pairs (rank[i], rank1[i + n - 1]) are radix-sorted (two stable counting passes) and ranked densely into
    w.rank. Returns the number of distinct n-grams."""
    cdef vector[int32_t]* rank = w.rank
    cdef vector[int32_t]* rank1 = w.rank1
    cdef vector[int32_t]* order = w.order
    cdef vector[int32_t]* tmp = w.tmp
    cdef vector[int32_t]* cnt = w.cnt
    cdef Py_ssize_t i, k, r = -1, size = na if na > <Py_ssize_t>rank1.size() else <Py_ssize_t>rank1.size()
    cdef int32_t a, b, pa = -1, pb = -1
    order.resize(m)
    tmp.resize(m)
    cnt.assign(size + 1, 0)
    for i in range(m):                                  # by the second component
        cnt[0][rank1[0][i + n - 1] + 1] += 1
    for k in range(size):
        cnt[0][k + 1] += cnt[0][k]
    for i in range(m):
        b = rank1[0][i + n - 1]
        tmp[0][cnt[0][b]] = <int32_t>i
        cnt[0][b] += 1
    cnt.assign(size + 1, 0)
    for i in range(m):                                  # then, stably, by the first
        cnt[0][rank[0][i] + 1] += 1
    for k in range(size):
        cnt[0][k + 1] += cnt[0][k]
    for k in range(m):
        i = tmp[0][k]
        a = rank[0][i]
        order[0][cnt[0][a]] = <int32_t>i
        cnt[0][a] += 1
    for k in range(m):                                  # order[] is read before rank[] is overwritten: keep both
        i = order[0][k]
        tmp[0][k] = rank[0][i]
    for k in range(m):
        i = order[0][k]
        a, b = tmp[0][k], rank1[0][i + n - 1]
        if k == 0 or a != pa or b != pb:
            r += 1
        pa, pb = a, b
        rank[0][i] = <int32_t>r
    return r + 1


cdef void _count(Work* w, Py_ssize_t nranks, Py_ssize_t H, Py_ssize_t R, Py_ssize_t n, int64_t* out) noexcept nogil:
    """For the n-grams of hyp (positions 0..H-n) and ref (H..H+R-n), ranked in w.rank: clipped matches, distinct
    hyp n-grams, distinct ref n-grams, distinct shared n-grams."""
    cdef Py_ssize_t i, g
    cdef int64_t clipped = 0, dh = 0, dr = 0, shared = 0
    cdef vector[int32_t]* ch = w.ch
    cdef vector[int32_t]* cr = w.cr
    cdef const int32_t* rank = w.rank.data()
    ch.assign(nranks, 0)
    cr.assign(nranks, 0)
    for i in range(H - n + 1):
        ch[0][rank[i]] += 1
    for i in range(H, H + R - n + 1):
        cr[0][rank[i]] += 1
    for g in range(nranks):
        if ch[0][g]:
            dh += 1
            if cr[0][g]:
                shared += 1
                clipped += ch[0][g] if ch[0][g] < cr[0][g] else cr[0][g]
        if cr[0][g]:
            dr += 1
    out[0] = clipped
    out[1] = dh
    out[2] = dr
    out[3] = shared


cdef Py_ssize_t _ngrams(Work* w, const vector[int32_t]& text, Py_ssize_t H, Py_ssize_t R, int64_t* out) noexcept nogil:
    """out[0..3]: clipped matches of n = 1..4; out[4..6]: distinct hyp / ref / shared unigrams; out[7..9]: the same
    for bigrams. text is hyp followed by ref. Returns the number of distinct code points (ranked in w.rank1)."""
    cdef Py_ssize_t T = H + R, i, n, nranks, ncodes
    cdef int64_t stats[4]
    for i in range(10):
        out[i] = 0
    if T == 0:
        return 0
    w.rank1.resize(T)
    w.rank.resize(T)
    nranks = ncodes = _rank_codes(text.data(), T, w.keyed[0], w.rank1.data())
    for i in range(T):
        w.rank[0][i] = w.rank1[0][i]
    for n in range(1, 5):
        if n > 1:
            if T - n + 1 <= 0:
                break
            nranks = _rank_pairs(w, T - n + 1, nranks, n)
        _count(w, nranks, H, R, n, stats)
        out[n - 1] = stats[0]
        if n <= 2:
            out[4 + 3 * (n - 1)] = stats[1]
            out[5 + 3 * (n - 1)] = stats[2]
            out[6 + 3 * (n - 1)] = stats[3]
    return ncodes


cdef Py_ssize_t _find(const vector[int32_t]& vals, int32_t c) noexcept nogil:
    """Index of c in the sorted distinct values, or -1."""
    cdef Py_ssize_t lo = 0, hi = <Py_ssize_t>vals.size(), mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if vals[mid] < c:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < <Py_ssize_t>vals.size() and vals[lo] == c else -1


cdef void _meteor(Work* w, const vector[int32_t]& text, Py_ssize_t H, Py_ssize_t R, bint same, Py_ssize_t nranks,
                  unordered_map[int32_t, vector[int32_t]]& synonyms, int64_t* out) noexcept nogil:
    """NLTK METEOR's alignment of lower-cased tokens (text: hyp then ref, one code point per token): exact matches from
    the last hyp token, each to the last free equal ref token; then, for the tokens left (last first), a synonym's last
    free ref position, the largest over the synonyms. out[0]: matches, out[1]: chunks (runs consecutive in both).
    ``same``: text is the one _ngrams ranked (its nranks code-point ranks are still in w.rank1)."""
    cdef Py_ssize_t T = H + R, i, j, k, v, best_v, best_j, m = 0, chunks = 0, prev_i = -2, prev_j = -2
    cdef int32_t syn
    cdef vector[int32_t] vals, ids, start, top, pos, match, left
    out[0] = 0
    out[1] = 0
    if H == 0 or R == 0:
        return
    if same:                                        # the lower-cased text is the text: its ranks are in w.rank1
        ids = w.rank1[0]
        v = nranks
    else:
        ids.resize(T)
        v = _rank_codes(text.data(), T, w.keyed[0], ids.data())
    vals.resize(v)
    for k in range(T):
        vals[ids[k]] = text[k]
    start.assign(v + 1, 0)
    for j in range(H, T):
        start[ids[j] + 1] += 1
    for k in range(v):
        start[k + 1] += start[k]
    top.assign(v, 0)
    for k in range(v):
        top[k] = start[k]
    pos.resize(R)
    for j in range(H, T):                           # ref positions of each token, ascending
        pos[top[ids[j]]] = <int32_t>(j - H)
        top[ids[j]] += 1
    match.assign(H, -1)
    for i in range(H - 1, -1, -1):
        k = ids[i]
        if top[k] > start[k]:
            top[k] -= 1
            match[i] = pos[top[k]]
        else:
            left.push_back(<int32_t>i)
    for i in left:
        if synonyms.count(text[i]) == 0:
            continue
        best_v, best_j = -1, -1
        for syn in synonyms[text[i]]:
            k = _find(vals, syn)
            if k >= 0 and top[k] > start[k] and pos[top[k] - 1] > best_j:
                best_v, best_j = k, pos[top[k] - 1]
        if best_v >= 0:
            top[best_v] -= 1
            match[i] = <int32_t>best_j
    for i in range(H):
        if match[i] < 0:
            continue
        m += 1
        if not (i == prev_i + 1 and match[i] == prev_j + 1):
            chunks += 1
        prev_i, prev_j = i, match[i]
    out[0] = m
    out[1] = chunks


def pair_stats(list hyps not None, list refs not None, list hyps_lower not None, list refs_lower not None,
               dict synonyms not None):
    """Statistics of each (hyp, ref) pair of strings, one token per code point, as a list of tuples over COLUMNS:
    lengths; clipped n-gram matches n = 1..4 (NLTK BLEU); distinct hyp / ref / shared uni- and bigrams
    (rouge_chinese); LCS length; METEOR matches and chunks over hyps_lower / refs_lower (the tokens lower-cased, one
    code point per token) with ``synonyms`` (single character -> single characters, in preference order)."""
    cdef Py_ssize_t n = len(hyps), p, H, R, ncodes
    cdef vector[int32_t] text, low
    cdef int64_t s[15]
    cdef unordered_map[int32_t, vector[int32_t]] syn
    cdef vector[uint64_t] keyed
    cdef vector[int32_t] rank1, rank, order, tmp, cnt, ch, cr
    cdef Work w
    w.keyed = &keyed
    w.rank1 = &rank1
    w.rank = &rank
    w.order = &order
    w.tmp = &tmp
    w.cnt = &cnt
    w.ch = &ch
    w.cr = &cr
    if not (len(refs) == len(hyps_lower) == len(refs_lower) == n):
        raise ValueError("pair_stats takes four lists of the same length")
    for key, members in synonyms.items():
        if len(key) != 1 or any(len(m) != 1 for m in members):
            raise ValueError("synonyms map single characters to single characters")
        for m in members:
            syn[<int32_t>ord(key)].push_back(<int32_t>ord(m))
    out = []
    for p in range(n):
        hs, rs, hl, rl = hyps[p], refs[p], hyps_lower[p], refs_lower[p]
        H, R = len(hs), len(rs)
        if len(hl) != H or len(rl) != R:
            raise ValueError("a lower-cased text must keep one code point per token")
        text.clear()
        _codes(hs, text)
        _codes(rs, text)
        low.clear()
        _codes(hl, low)
        _codes(rl, low)
        s[0], s[1] = H, R
        ncodes = _ngrams(&w, text, H, R, &s[2])
        s[12] = lcs_length(&text[0], H, &text[H], R) if H and R else 0
        _meteor(&w, low, H, R, low == text, ncodes, syn, &s[13])
        out.append((s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10], s[11], s[12], s[13], s[14]))
    return out
