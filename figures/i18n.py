"""Every label of figures and pages, in Korean (the article's) and English.

`t(key, lang, **fields)` looks a label up and fills its {fields}. A missing key or
language raises KeyError, so a label cannot silently fall back to the wrong language.
"""

from __future__ import annotations

LANGS = ("ko", "en")
DEFAULT_LANG = "ko"

TEXT: dict[str, dict[str, str]] = {
    # models
    "model.mha": {"ko": "가상 MHA", "en": "Hypothetical MHA"},
    # roles
    "role.main_kv": {"ko": "attention KV", "en": "attention KV"},
    "role.index_key": {"ko": "검색용 key", "en": "index key"},
    "role.local_kv": {"ko": "local KV", "en": "local KV"},
    "role.key_short": {"ko": "검색용 key", "en": "key"},
    # A1
    "a1.title": {"ko": "KV 캐시: 저장하는 양과 읽는 양", "en": "KV cache: what is stored and what is read"},
    "a1.sub": {"ko": "배포 캐시 형식", "en": "deployed cache format"},
    "a1.sub.bf16": {"ko": "모두 BF16", "en": "all BF16"},
    "a1.sub.custom": {"ko": "사용자 지정 형식", "en": "custom formats"},
    "a1.storage": {"ko": "토큰당 저장 증가량", "en": "Storage growth per token"},
    "a1.read": {"ko": "토큰 하나를 생성할 때 읽는 양 ({n} 문맥)",
                "en": "Read to generate one token ({n} context)"},
    "a1.base": {"ko": "기준", "en": "baseline"},
    "a1.ratio": {"ko": "MHA의 약 {r}", "en": "≈{r} of MHA"},
    "a1.local": {"ko": "별도: local KV (SWA, 최근 {w}위치) {b}",
                 "en": "separate: local KV (SWA, recent {w} positions) {b}"},
    "a1.fmt.main": {"ko": "KV {f} {b}", "en": "KV {f} {b}"},
    "a1.fmt.key": {"ko": "검색용 key {f} {b}", "en": "index key {f} {b}"},
    "a1.readline": {"ko": "KV {kv} · 검색용 key {ik} ({share})", "en": "KV {kv} · index key {ik} ({share})"},
    "a1.axis.storage": {"ko": "bytes / 토큰 (로그 눈금)", "en": "bytes / token (log scale)"},
    "a1.axis.read": {"ko": "bytes / 생성 토큰 (로그 눈금)", "en": "bytes / generated token (log scale)"},
    "a1.hover.storage": {"ko": "%{customdata[0]}<br>%{customdata[1]}: %{customdata[2]}",
                         "en": "%{customdata[0]}<br>%{customdata[1]}: %{customdata[2]}"},
    "a.gen": {"ko": "KV 캐시 저장과 읽기: {m}", "en": "KV cache storage and reads: {m}"},
    # matrix diagrams (shared)
    "mx.cached": {"ko": "캐시", "en": "cached"},
    "mx.width": {"ko": "상자 폭은 열 차원의 크기 순서만 나타냅니다 (비례 아님). 보라색 = 학습하는 가중치.",
                 "en": "Box width shows only the order of column sizes (not proportional). Purple = learned weight."},
    # A3
    "a3.title": {"ko": "같은 입력에서 갈라지는 MLA", "en": "MLA: three paths from one input"},
    "a3.sub": {"ko": "X에서 Query, 공유 KV latent, 위치 Key를 만드는 세 경로",
               "en": "From X to the query, the shared KV latent and the position key"},
    "a3.query": {"ko": "Query", "en": "Query"},
    "a3.kv": {"ko": "공유 KV latent", "en": "shared KV latent"},
    "a3.pos": {"ko": "위치 Key", "en": "position key"},
    "a3.shared": {"ko": "모든 head가 공유", "en": "shared by all heads"},
    "a3.cap": {"ko": "캐시에 남는 것: C<sup>KV</sup> ({kv}차원)와 K<sup>R</sup> ({r}차원). head별 Key와 Value는 저장하지 않습니다.",
               "en": "What stays in the cache: C<sup>KV</sup> ({kv} dims) and K<sup>R</sup> ({r} dims); per-head keys and values are not stored."},
    # A4
    "a4.title": {"ko": "두 점수를 더해 Attention", "en": "Attention = content score + position score"},
    "a4.sub": {"ko": "대표 head h · 내용 점수 + 위치 점수", "en": "one head h · content score + position score"},
    "a4.score": {"ko": "① 점수에서 확률까지", "en": "① score to probability"},
    "a4.out": {"ko": "② 출력까지", "en": "② to the output"},
    "a4.concat": {"ko": "head {n}개 이어 붙이기", "en": "concat {n} heads"},
    "a4.cap": {"ko": "S<sub>h</sub>를 √(d<sub>k</sub> + d<sub>r</sub>) = √({dk} + {dr})로 나누고 causal mask와 softmax를 거쳐 P<sub>h</sub>.",
               "en": "S<sub>h</sub> ÷ √(d<sub>k</sub> + d<sub>r</sub>) = √({dk}+{dr}), causal mask, softmax → P<sub>h</sub>."},
    # A5 / A6
    "a5.title": {"ko": "Key를 펼치지 않고 같은 점수", "en": "Same score without expanding keys"},
    "a5.sub": {"ko": "head {h}의 내용 점수 · 같은 결과를 내는 세 계산 순서 · seed {seed}",
               "en": "content score of head {h} · three orders, one result · seed {seed}"},
    "a5.expand": {"ko": "① 펼치기: 내적은 d<sub>k</sub> = {d}차원", "en": "① expand: dot products in d<sub>k</sub> = {d} dims"},
    "a5.absorb": {"ko": "② 흡수: 내적은 r<sub>kv</sub> = {d}차원, Key를 펼치지 않음",
                  "en": "② absorb: dot products in r<sub>kv</sub> = {d} dims, no keys expanded"},
    "a5.premerged": {"ko": "③ 가중치 미리 합치기", "en": "③ pre-merged weight"},
    "a5.expanded": {"ko": "= (C<sup>KV</sup>W<sup>UK</sup><sub>h</sub>)<sup>T</sup> 펼친 Key",
                    "en": "= (C<sup>KV</sup>W<sup>UK</sup><sub>h</sub>)<sup>T</sup>, expanded keys"},
    "a5.qhat": {"ko": "= Q<sup>C</sup><sub>h</sub>(W<sup>UK</sup><sub>h</sub>)<sup>T</sup>",
                "en": "= Q<sup>C</sup><sub>h</sub>(W<sup>UK</sup><sub>h</sub>)<sup>T</sup>"},
    "a5.what": {"ko": "= W<sup>UQ</sup><sub>h</sub>(W<sup>UK</sup><sub>h</sub>)<sup>T</sup>",
                "en": "= W<sup>UQ</sup><sub>h</sub>(W<sup>UK</sup><sub>h</sub>)<sup>T</sup>"},
    "a5.diff": {"ko": "세 결과의 최대 |차이| = {d} (최댓값 대비 {r}), 계산 정밀도 {p}",
                "en": "largest |difference| between the three = {d} ({r} of the largest value), computed in {p}"},
    "a5.cap": {"ko": "글의 크기로는 d<sub>k</sub> = {dk}, r<sub>kv</sub> = {rkv}: 흡수하면 내적이 4배 길어지는 대신 "
                     "Key를 펼치는 계산과 읽기가 사라집니다.",
               "en": "At the article's sizes d<sub>k</sub> = {dk}, r<sub>kv</sub> = {rkv}: absorbing makes each dot "
                     "product 4× longer but removes expanding and reading keys."},
    "a6.title": {"ko": "Value를 펼치지 않고 같은 출력", "en": "Same output without expanding values"},
    "a6.sub": {"ko": "같은 확률 P<sub>h</sub> · head {h}의 출력 기여분 Y<sub>h</sub> · seed {seed}",
               "en": "same probabilities P<sub>h</sub> · head {h}'s output share Y<sub>h</sub> · seed {seed}"},
    "a6.expand": {"ko": "① 펼치기: V<sub>h</sub>를 [T × d<sub>v</sub>]로 펼친 뒤 가중합",
                  "en": "① expand: V<sub>h</sub> expanded to [T × d<sub>v</sub>], then weighted"},
    "a6.absorb": {"ko": "② 흡수: C<sup>KV</sup>를 먼저 가중합 (U<sub>h</sub>)",
                  "en": "② absorb: weight C<sup>KV</sup> first (U<sub>h</sub>)"},
    "a6.merged": {"ko": "③ 가중치 미리 합치기", "en": "③ merged weight"},
    "a6.u": {"ko": "= P<sub>h</sub>C<sup>KV</sup>", "en": "= P<sub>h</sub>C<sup>KV</sup>"},
    "a6.v": {"ko": "= C<sup>KV</sup>W<sup>UV</sup><sub>h</sub> 펼친 Value",
             "en": "= C<sup>KV</sup>W<sup>UV</sup><sub>h</sub>, expanded values"},
    "a6.what": {"ko": "= W<sup>UV</sup><sub>h</sub>W<sup>O</sup><sub>h</sub>",
                "en": "= W<sup>UV</sup><sub>h</sub>W<sup>O</sup><sub>h</sub>"},
    "a6.cap": {"ko": "모든 head의 Y<sub>h</sub>를 더하면 출력 Y입니다. decode 한 단계는 C<sup>KV</sup>와 K<sup>R</sup>만 읽습니다.",
               "en": "Summing Y<sub>h</sub> over heads gives the output Y; a decode step reads only C<sup>KV</sup> and K<sup>R</sup>."},
    # A8–A10
    "a8.title": {"ko": "indexer가 만드는 세 가지", "en": "What the lightning indexer makes"},
    "a8.sub": {"ko": "MLA의 Query latent와 X에서 · query, key, head 가중치",
               "en": "from MLA's query latent and X · query, key, head weights"},
    "a8.q": {"ko": "indexer query (head {h}개)", "en": "indexer queries ({h} heads)"},
    "a8.k": {"ko": "검색용 key (모든 head가 공유)", "en": "index key (shared by all heads)"},
    "a8.w": {"ko": "head 가중치", "en": "head weights"},
    "a8.rope": {"ko": "RoPE ({d}차원 중 {r})", "en": "RoPE ({r} of {d} dims)"},
    "a8.fp8": {"ko": "{f} · {b} B", "en": "{f} · {b} B"},
    "a8.cap": {"ko": "q와 w는 캐시하지 않습니다. 이후 토큰이 이전 위치를 평가하려면 그 위치의 k<sup>I</sup>가 필요해서 k<sup>I</sup>만 쌓입니다.",
               "en": "q and w are not cached; later tokens need k<sup>I</sup> of every earlier position, so only k<sup>I</sup> accumulates."},
    "a9.title": {"ko": "어떤 토큰을 볼지 고르는 점수", "en": "Score for choosing tokens"},
    "a9.sub": {"ko": "indexer head j의 점수 → 모든 head 합 → 행마다 top-k · seed {seed}",
               "en": "indexer head j's score → sum over heads → top-k per row · seed {seed}"},
    "a9.head": {"ko": "head {j}: w·ReLU(q·k)", "en": "head {j}: w·ReLU(q·k)"},
    "a9.more": {"ko": "head {n}개 더", "en": "{n} more heads"},
    "a9.sum": {"ko": "head별 점수의 합 (indexer head {h}개)", "en": "sum of per-head scores ({h} indexer heads)"},
    "a9.select": {"ko": "행마다 볼 수 있는 위치(자기 포함) 가운데 상위 k개", "en": "per row: top-k of the visible positions (self included)"},
    "a9.topk": {"ko": "top-{k}", "en": "top-{k}"},
    "a9.formula": {"ko": "I(t, s) = Σ<sub>j</sub> w<sup>I</sup>(t, j) · ReLU(q<sup>I</sup>(t, j) · k<sup>I</sup>(s)) — softmax 없음, 순위만 정합니다.",
                   "en": "I(t, s) = Σ<sub>j</sub> w<sup>I</sup>(t, j) · ReLU(q<sup>I</sup>(t, j) · k<sup>I</sup>(s)) — no softmax: it only ranks."},
    "a9.cap": {"ko": "M: 고른 위치 0, 나머지 −∞. 행 t는 min(k, t+1) = min({k}, t+1)개를 고르고, 미래 위치는 후보가 아닙니다.",
               "en": "M: 0 where chosen, −∞ elsewhere. Row t chooses min(k, t+1) = min({k}, t+1) positions; future positions are never candidates."},
    "a10.title": {"ko": "고른 위치에만 확률을 남기는 MLA", "en": "MLA that keeps probability only on chosen tokens"},
    "a10.sub": {"ko": "흡수된 MLA 점수 + 선택 마스크 M · head {h} · k = {k} · seed {seed}",
                "en": "absorbed MLA score + selection mask M · head {h} · k = {k} · seed {seed}"},
    "a10.score": {"ko": "점수에 M을 더하고 softmax", "en": "add M to the score, softmax"},
    "a10.out": {"ko": "고른 위치의 C<sup>KV</sup>만 가중합", "en": "weight only the chosen rows of C<sup>KV</sup>"},
    "a10.cap": {"ko": "M은 causal mask 역할도 합니다. 선택되지 않은 위치는 softmax 뒤 확률이 0입니다.",
                "en": "M doubles as the causal mask; positions not chosen get probability 0 after softmax."},
    # MLA cost over T
    "cost.title": {"ko": "내용 점수의 곱셈-덧셈 수: 펼치기 vs 흡수", "en": "Content-score multiply-adds: expand vs absorb"},
    "cost.sub": {"ko": "head 하나 · r<sub>kv</sub> = {rkv}, d<sub>k</sub> = {dk} · decode는 Query 1개, prefill은 Query T개",
                 "en": "one head · r<sub>kv</sub> = {rkv}, d<sub>k</sub> = {dk} · decode: 1 query; prefill: T queries"},
    "cost.expand": {"ko": "① 펼치기", "en": "① expand"},
    "cost.absorb": {"ko": "② 흡수", "en": "② absorb"},
    "cost.decode": {"ko": "decode", "en": "decode"},
    "cost.prefill": {"ko": "prefill", "en": "prefill"},
    "cost.x": {"ko": "캐시 위치 수 T (로그 눈금)", "en": "cached positions T (log scale)"},
    "cost.y": {"ko": "곱셈-덧셈 (로그 눈금)", "en": "multiply-adds (log scale)"},
    # crossover
    "x.title": {"ko": "global KV와 local KV가 같아지는 문맥 길이",
                "en": "Where global KV catches up with local KV"},
    "x.global": {"ko": "{m} global KV (토큰당 증가량 × N)", "en": "{m} global KV (growth × N)"},
    "x.local": {"ko": "{m} local KV", "en": "{m} local KV"},
    "x.meet": {"ko": "≈{n} 토큰", "en": "≈{n} tokens"},
    "x.axis.x": {"ko": "문맥 길이 N (토큰, 로그 눈금)", "en": "context length N (tokens, log scale)"},
    "x.axis.y": {"ko": "캐시 (bytes, 로그 눈금)", "en": "cache (bytes, log scale)"},
    "x.now": {"ko": "현재 N", "en": "current N"},
    # app chrome
    "app.title": {"ko": "KV Atlas", "en": "KV Atlas"},
    "app.lang": {"ko": "언어 · Language", "en": "Language · 언어"},
    "app.context": {"ko": "문맥 길이 (토큰)", "en": "Context length (tokens)"},
    "app.context.help": {"ko": "로그 눈금. K = 1,024 토큰.", "en": "Log scale. K = 1,024 tokens."},
    "app.precision": {"ko": "정밀도", "en": "Precision"},
    "app.precision.help": {"ko": "deployed: 글의 배포 캐시 형식 · bf16: 모든 캐시 값 BF16",
                           "en": "deployed: the article's deployed cache formats · bf16: every cached value BF16"},
    "app.override": {"ko": "구성 요소별 정밀도", "en": "Per-component precision"},
    "app.override.help": {"ko": "auto는 위 정밀도를 따릅니다.", "en": "auto follows the preset above."},
    "app.units": {"ko": "단위", "en": "Units"},
    "app.page.overview": {"ko": "개요", "en": "Overview"},
    # V2 page
    "app.page.v2": {"ko": "V2 · MLA", "en": "V2 · MLA"},
    "v2.title": {"ko": "DeepSeek-V2: MLA로 저장 벡터의 폭을 줄이다", "en": "DeepSeek-V2: MLA narrows the stored vector"},
    "v2.intro": {"ko": "head별 Key와 Value 대신, 이를 만들 수 있는 작은 공통 벡터(latent) Cᴷⱽ와 위치용 Key Kᴿ를 저장합니다.",
                 "en": "Instead of per-head keys and values, V2 stores a small shared latent Cᴷⱽ they can be made from, plus one position key Kᴿ."},
    "v2.m.ratio": {"ko": "MHA 대비", "en": "vs MHA"},
    "v2.paths": {"ko": "MLA: 같은 입력에서 갈라지는 세 경로", "en": "MLA: three paths from one input"},
    "v2.absorb": {"ko": "Key와 Value를 펼치지 않고 계산하기", "en": "Computing without expanding keys and values"},
    "v2.absorb.intro": {"ko": "아래 숫자는 작은 MLA 층을 실제로 계산한 값입니다. 세 계산 순서는 대수적으로 같고, 유한 정밀도(BF16, FP8)에서는 반올림 오차만큼 달라집니다.",
                        "en": "The numbers below come from a small MLA layer computed here. The three orders are algebraically equal; in finite precision (BF16, FP8) they differ by rounding."},
    "v2.m.score_diff": {"ko": "점수: 세 순서의 최대 |차이| ({p})", "en": "score: largest |difference| ({p})"},
    "v2.m.out_diff": {"ko": "출력: 세 순서의 최대 |차이| ({p})", "en": "output: largest |difference| ({p})"},
    "v2.cost": {"ko": "decode에서는 흡수, prefill에서는 펼치기가 나을 수 있다", "en": "Absorb wins at decode; expand may win at prefill"},
    "v2.cost.intro": {"ko": "Query가 하나뿐인 decode에서는 Key를 펼치는 비용(위치마다 r_kv × d_k)이 사라져 흡수가 유리합니다. Query가 많은 prefill에서는 한 번 펼친 Key를 모든 Query가 함께 씁니다.",
                      "en": "With one query (decode), absorbing removes expanding every cached position (r_kv × d_k each). With many queries (prefill), keys expanded once serve every query."},
    "ctl.seed": {"ko": "seed", "en": "seed"},
    "ctl.tokens": {"ko": "토큰 수 T", "en": "number of tokens T"},
    "ctl.rkv": {"ko": "KV latent 폭 r_kv (글: 512)", "en": "KV latent width r_kv (article: 512)"},
    "ctl.dk": {"ko": "head 차원 d_k (글: 128)", "en": "head dim d_k (article: 128)"},
    "ctl.calc": {"ko": "계산 정밀도", "en": "computation precision"},
    "ctl.topk": {"ko": "행마다 고르는 위치 수 k (글: 2,048)", "en": "positions chosen per row k (article: 2,048)"},
    # V3.2 page
    "app.page.v32": {"ko": "V3.2 · DSA", "en": "V3.2 · DSA"},
    "dsa.title": {"ko": "DeepSeek-V3.2: DSA는 읽는 위치를 줄인다", "en": "DeepSeek-V3.2: DSA reduces the positions read"},
    "dsa.intro": {"ko": "MLA는 그대로 두고, 작은 lightning indexer가 점수를 매겨 위치를 골라 주 attention이 선택된 위치만 사용합니다.",
                  "en": "MLA stays; a small lightning indexer scores positions and main attention uses only the chosen ones."},
    "dsa.m.share": {"ko": "읽는 양 중 검색용 key", "en": "index key share of reads"},
    "dsa.note": {"ko": "DSA는 저장량을 줄이지 않습니다. 모두 BF16이면 V3.2 {a} vs V3 {b}: 검색용 key 때문에 {g} 늘어납니다. 선택되지 않은 위치도 다음 토큰이 고를 수 있어 지우지 않습니다.",
                 "en": "DSA does not reduce storage: all in BF16, V3.2 {a} vs V3 {b}, {g} more for the index key. Unchosen positions stay: the next token may choose them."},
    "dsa.indexer": {"ko": "DSA: indexer가 만드는 세 가지", "en": "DSA: what the indexer makes"},
    "dsa.pick": {"ko": "위치를 고르는 점수와 고른 위치만 보는 MLA", "en": "Scoring positions, and MLA on the chosen ones"},
    "dsa.rows": {"ko": "k = {k}, T = {T}: 행 t는 min(k, t+1)개를 골라 모두 {n}개 위치를 봅니다.",
                 "en": "k = {k}, T = {T}: row t chooses min(k, t+1) positions, {n} in all."},
    # overview page
    "ov.title": {"ko": "DeepSeek의 KV 캐시: 토큰당 {first}에서 {last}까지",
                 "en": "DeepSeek's KV cache: from {first} to {last} per token"},
    "ov.intro": {
        "ko": "토큰당 KV 캐시 ≈ 저장 벡터의 폭 × 저장하는 층 수 × 원소당 bytes ÷ 압축 비율. "
              "아래 숫자는 모두 모델 명세에서 바이트 단위로 계산합니다.",
        "en": "Per-token KV ≈ width of the stored vector × layers storing × bytes per element ÷ "
              "compression ratio. Every number below is computed to the byte from the model specs."},
    "ov.highlight": {"ko": "강조할 모델", "en": "Highlighted model"},
    "ov.models": {"ko": "모델", "en": "Models"},
    "ov.m.storage": {"ko": "{m} 토큰당 저장", "en": "{m} storage / token"},
    "ov.m.cache": {"ko": "{m} 캐시 ({n} 문맥)", "en": "{m} cache at {n}"},
    "ov.m.read": {"ko": "{m} 토큰당 읽는 양", "en": "{m} read per token"},
    "ov.table": {"ko": "모델별 숫자", "en": "Numbers per model"},
    "ov.csv": {"ko": "CSV 내려받기", "en": "Download CSV"},
    "ov.crossover.note": {
        "ko": "global KV를 토큰당 증가량 × 문맥 길이로 근사하면, 최근 128위치의 local KV와 "
              "같아지는 문맥 길이입니다 (압축 블록의 반올림은 제외한 근사).",
        "en": "Approximating global KV as growth per token × context length, this is where it "
              "equals the fixed local KV of the recent 128 positions (block rounding ignored)."},
    "ov.empty": {"ko": "모델을 하나 이상 고르세요.", "en": "Pick at least one model."},
    # table columns
    "col.model": {"ko": "모델", "en": "model"},
    "col.storage": {"ko": "저장/토큰 (B)", "en": "storage/token (B)"},
    "col.local": {"ko": "local KV (B)", "en": "local KV (B)"},
    "col.cache": {"ko": "캐시 at N (B)", "en": "cache at N (B)"},
    "col.read_kv": {"ko": "읽기 KV (B)", "en": "read KV (B)"},
    "col.read_key": {"ko": "읽기 key (B)", "en": "read index key (B)"},
    "col.read": {"ko": "읽기 합계 (B)", "en": "read total (B)"},
    "col.ratio": {"ko": "MHA 대비", "en": "vs MHA"},
    "col.crossover": {"ko": "교차 문맥 (토큰)", "en": "crossover (tokens)"},
}


def t(key: str, lang: str = DEFAULT_LANG, **fields) -> str:
    text = TEXT[key][lang]
    return text.format(**fields) if fields else text


def model_name(model_id: str, name: str, lang: str) -> str:
    key = f"model.{model_id}"
    return t(key, lang) if key in TEXT else name
