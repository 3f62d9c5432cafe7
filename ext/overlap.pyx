# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Integer statistics of text-overlap metrics over pairs of character strings (one token per code point): the n-gram
counts of BLEU and ROUGE-1/2, the LCS of ROUGE-L and the alignment counts of METEOR (peet_fast.metrics.overlap turns
them into the metric values, with the same float operations as before).

n-grams are ranked exactly (no hashing): the code points of hyp + ref get dense ranks by sorting, and the n-gram
starting at i gets the dense rank of the pair (rank of its (n-1)-gram at i, rank of the code point at i + n - 1), so
two n-grams have the same rank exactly when they are the same substring. Counting ranks in hyp and in ref then gives
NLTK's clipped matches and rouge_chinese's set sizes. The LCS is ext/chardist's bit-parallel one."""
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libcpp.algorithm cimport sort
from libcpp.pair cimport pair
from libcpp.unordered_map cimport unordered_map
from libcpp.vector cimport vector

from peet_fast._ext.chardist cimport lcs_length

# columns of a pair's statistics (see pair_stats)
COLUMNS = ("hyp_len", "ref_len", "clip1", "clip2", "clip3", "clip4", "hyp1", "ref1", "shared1", "hyp2", "ref2",
           "shared2", "lcs", "meteor_matches", "meteor_chunks")


cdef void _codes(str s, vector[int32_t]& out):
    """Append the code points of s to out."""
    cdef Py_UCS4 ch
    for ch in s:
        out.push_back(<int32_t>ch)


cdef Py_ssize_t _dense(vector[pair[uint64_t, int32_t]]& keyed, int32_t* rank) noexcept nogil:
    """Sort (key, position) pairs and write each position's dense key rank; returns the number of distinct keys."""
    cdef Py_ssize_t k, r = -1
    sort(keyed.begin(), keyed.end())
    for k in range(<Py_ssize_t>keyed.size()):
        if k == 0 or keyed[k].first != keyed[k - 1].first:
            r += 1
        rank[keyed[k].second] = <int32_t>r
    return r + 1


cdef void _count(const int32_t* rank, Py_ssize_t nranks, Py_ssize_t H, Py_ssize_t R, Py_ssize_t n,
                 vector[int32_t]& ch, vector[int32_t]& cr, int64_t* out) noexcept nogil:
    """For the n-grams of hyp (positions 0..H-n) and ref (H..H+R-n): clipped matches, distinct hyp n-grams,
    distinct ref n-grams, distinct shared n-grams."""
    cdef Py_ssize_t i, g
    cdef int64_t clipped = 0, dh = 0, dr = 0, shared = 0
    ch.assign(nranks, 0)
    cr.assign(nranks, 0)
    for i in range(H - n + 1):
        ch[rank[i]] += 1
    for i in range(H, H + R - n + 1):
        cr[rank[i]] += 1
    for g in range(nranks):
        if ch[g]:
            dh += 1
            if cr[g]:
                shared += 1
                clipped += ch[g] if ch[g] < cr[g] else cr[g]
        if cr[g]:
            dr += 1
    out[0] = clipped
    out[1] = dh
    out[2] = dr
    out[3] = shared


cdef void _ngrams(const vector[int32_t]& text, Py_ssize_t H, Py_ssize_t R, int64_t* out) noexcept nogil:
    """out[0..3]: clipped matches of n = 1..4; out[4..6]: distinct hyp / ref / shared unigrams; out[7..9]: the same
    for bigrams. text is hyp followed by ref."""
    cdef Py_ssize_t T = H + R, i, n, nranks
    cdef vector[pair[uint64_t, int32_t]] keyed
    cdef vector[int32_t] rank1, rank, ch, cr
    cdef int64_t stats[4]
    for i in range(10):
        out[i] = 0
    if T == 0:
        return
    rank1.resize(T)
    rank.resize(T)
    keyed.resize(T)
    for i in range(T):
        keyed[i] = pair[uint64_t, int32_t](<uint64_t><uint32_t>text[i], <int32_t>i)
    nranks = _dense(keyed, &rank1[0])
    for i in range(T):
        rank[i] = rank1[i]
    for n in range(1, 5):
        if n > 1:
            if T - n + 1 <= 0:
                break
            keyed.resize(T - n + 1)
            for i in range(T - n + 1):      # rank[i] is still the (n-1)-gram's rank (read before written below)
                keyed[i] = pair[uint64_t, int32_t](((<uint64_t>rank[i]) << 32) | <uint64_t>rank1[i + n - 1],
                                                   <int32_t>i)
            nranks = _dense(keyed, &rank[0])
        _count(&rank[0], nranks, H, R, n, ch, cr, stats)
        out[n - 1] = stats[0]
        if n <= 2:
            out[4 + 3 * (n - 1)] = stats[1]
            out[5 + 3 * (n - 1)] = stats[2]
            out[6 + 3 * (n - 1)] = stats[3]


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


cdef void _meteor(const vector[int32_t]& text, Py_ssize_t H, Py_ssize_t R,
                  unordered_map[int32_t, vector[int32_t]]& synonyms, int64_t* out) noexcept nogil:
    """NLTK METEOR's alignment of lower-cased tokens (text: hyp then ref, one code point per token): exact matches from
    the last hyp token, each to the last free equal ref token; then, for the tokens left (last first), a synonym's last
    free ref position, the largest over the synonyms. out[0]: matches, out[1]: chunks (runs consecutive in both)."""
    cdef Py_ssize_t T = H + R, i, j, k, v, best_v, best_j, m = 0, chunks = 0, prev_i = -2, prev_j = -2
    cdef int32_t w
    cdef vector[int32_t] vals, ids, start, top, pos, match, left
    cdef vector[pair[uint64_t, int32_t]] keyed
    if H == 0 or R == 0:
        out[0] = 0
        out[1] = 0
        return
    keyed.resize(T)
    for i in range(T):
        keyed[i] = pair[uint64_t, int32_t](<uint64_t><uint32_t>text[i], <int32_t>i)
    ids.resize(T)
    v = _dense(keyed, &ids[0])
    for k in range(T):
        if k == 0 or keyed[k].first != keyed[k - 1].first:
            vals.push_back(<int32_t>keyed[k].first)
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
        for w in synonyms[text[i]]:
            k = _find(vals, w)
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
    cdef Py_ssize_t n = len(hyps), p, H, R
    cdef vector[int32_t] text, low
    cdef int64_t s[15]
    cdef unordered_map[int32_t, vector[int32_t]] syn
    if not (len(refs) == len(hyps_lower) == len(refs_lower) == n):
        raise ValueError("pair_stats takes four lists of the same length")
    for key, members in synonyms.items():
        if len(key) != 1 or any(len(w) != 1 for w in members):
            raise ValueError("synonyms map single characters to single characters")
        for w in members:
            syn[<int32_t>ord(key)].push_back(<int32_t>ord(w))
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
        _ngrams(text, H, R, &s[2])
        s[12] = lcs_length(&text[0], H, &text[H], R) if H and R else 0
        _meteor(low, H, R, syn, &s[13])
        out.append((s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10], s[11], s[12], s[13], s[14]))
    return out
