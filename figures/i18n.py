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
