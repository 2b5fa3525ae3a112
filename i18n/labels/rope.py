"""Labels of the RoPE figure (V2), in Korean and English (i18n.t)."""
# ruff: noqa: E501  (a table of labels: one label per line reads better than wrapped strings)

TEXT: dict[str, dict[str, str]] = {
    "rope.title": {"ko": "RoPE: 거리만 남는 점수, 흡수를 막는 회전된 Key",
                   "en": "RoPE: only the distance is left, and a turned key blocks absorption"},
    "rope.sub": {"ko": "①② 길이 1인 {w}차원 q와 k, 위치마다 {deg}°씩 회전 · ③④ 작은 MLA 층의 head 하나 · seed {seed}",
                 "en": "①② q and k of {w} values and length 1, turned {deg}° per position · ③④ one head of a small MLA layer · seed {seed}"},
    "rope.l1": {"ko": "① q는 t만큼, k는 s만큼 회전", "en": "① q turned by t, k turned by s"},
    "rope.l2": {"ko": "② q만 거리 t − s만큼 회전, k는 그대로", "en": "② only q turned, by the distance t − s"},
    "rope.l3": {"ko": "③ 내용 Key에도 RoPE: 펼쳐서 구한 실제 점수", "en": "③ RoPE on the content key: the true score, keys expanded"},
    "rope.l4": {"ko": "④ 행마다 흡수한 Query 하나: s = 0에서만 맞음", "en": "④ one absorbed query per row: right only at s = 0"},
    "rope.by_distance": {"ko": "거리별 점수", "en": "score by distance"},
    "rope.turned_keys": {"ko": "위치마다 펼친 뒤 회전한 Key", "en": "keys expanded, then turned, per position"},
    "rope.qhat": {"ko": "= RoPE(Q<sup>C</sup><sub>h</sub>, t)(W<sup>UK</sup><sub>h</sub>)<sup>T</sup>",
                  "en": "= RoPE(Q<sup>C</sup><sub>h</sub>, t)(W<sup>UK</sup><sub>h</sub>)<sup>T</sup>"},
    "rope.cap.dist": {"ko": "①의 대각선 하나에는 값이 하나뿐이고, 그 값이 ②에 적힌 거리 t − s의 점수입니다. 예를 들어 t − s = 1인 칸은 S[{t}, {s}]를 비롯해 모두 {v}입니다. ①과 ②의 최대 |차이| = {d}.",
                      "en": "Each diagonal of ① holds one value, ②'s score at its distance t − s: every cell with t − s = 1, S[{t}, {s}] among them, is {v}. Largest |difference| between ① and ②: {d}."},
    "rope.cap.absorb": {"ko": "④는 Key가 돌지 않은 s = 0 열에서만 ③과 같고, 나머지 칸은 최대 {d}까지 어긋납니다. Query와 C<sup>KV</sup> 사이의 행렬 R<sub>t−s</sub>(W<sup>UK</sup><sub>h</sub>)<sup>T</sup>가 s마다 다르기 때문입니다.",
                        "en": "④ matches ③ only in column s = 0, where the key is not turned, and is off by up to {d} elsewhere: the matrix between the query and C<sup>KV</sup>, R<sub>t−s</sub>(W<sup>UK</sup><sub>h</sub>)<sup>T</sup>, changes with s."},
}
