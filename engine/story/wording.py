"""Changes and inbox items as sentences a person reads (Chinese by default, English available).

A stored field name (`from_id`, `user_fields`, `confirmation`) reads as a word (负责人,
人工编辑的字段, 确认状态); a value that is an object's id reads as that object's name; a
value that lists field names reads as those words; a confirmation or a yes/no reads as a
word; the actor reads as a person's name or as "automatic review (run …)". Ids stay
available beside each label (the answer keeps the raw value), so a reader can still copy one.

`Names` maps object ids to what a person calls them; the use case reads it at the moment the
change was believed (`jobs/story/diff.py`, `jobs/story/inbox.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from engine.language.lang import Lang
from engine.story.diff import DiffEntry, DiffKind
from engine.story.models import RESPONSIBLE_FOR, Actor, ActorKind, Suggestion, SuggestionKind

Names = Mapping[str, str]

_FIELDS: dict[Lang, dict[str, str]] = {
    "zh": {
        "name": "名称",
        "kind": "类型",
        "description": "描述",
        "status": "状态",
        "valid_from": "生效时间",
        "valid_to": "失效时间",
        "user_fields": "人工编辑的字段",
        "confirmed_fields": "已确认的字段",
        "from_id": "起点",
        "to_id": "终点",
        "type": "关系",
        "reason": "理由",
        "confirmation": "确认状态",
        "removed": "已移除",
        "title": "标题",
        "at": "时间",
        "story_id": "所属故事",
        "result_id": "整理结果",
        "text": "内容",
        "interval_start": "区间开始",
        "interval_end": "区间结束",
        "source_ids": "来源",
        "event_ids": "事件",
        "entity_ids": "实体",
        "who": "谁",
        "what": "事项",
        "due": "截止时间",
        "due_text": "截止说法",
        "blocks": "阻塞",
        "said_at": "说出时间",
        "target_kind": "对象类型",
        "target_id": "对象",
        "field": "字段",
        "current_value": "当前值",
        "proposed_value": "建议值",
        "repeat_of": "重提自",
    },
    "en": {
        "name": "name",
        "kind": "kind",
        "description": "description",
        "status": "status",
        "valid_from": "valid from",
        "valid_to": "valid to",
        "user_fields": "fields a person edited",
        "confirmed_fields": "confirmed fields",
        "from_id": "from",
        "to_id": "to",
        "type": "relation",
        "reason": "reason",
        "confirmation": "confirmation",
        "removed": "removed",
        "title": "title",
        "at": "time",
        "story_id": "story",
        "result_id": "result",
        "text": "text",
        "interval_start": "interval start",
        "interval_end": "interval end",
        "source_ids": "sources",
        "event_ids": "events",
        "entity_ids": "entities",
        "who": "who",
        "what": "what",
        "due": "due",
        "due_text": "due as said",
        "blocks": "blocks",
        "said_at": "said at",
        "target_kind": "object kind",
        "target_id": "object",
        "field": "field",
        "current_value": "current value",
        "proposed_value": "proposed value",
        "repeat_of": "repeats",
    },
}
# a relation's ends named for what the relation means
_HOLDER_FIELDS: dict[Lang, dict[str, str]] = {
    "zh": {"from_id": "负责人", "to_id": "负责的事项"},
    "en": {"from_id": "responsible person", "to_id": "what they are responsible for"},
}
_RELATION_TYPES: dict[Lang, dict[str, str]] = {
    "zh": {
        RESPONSIBLE_FOR: "负责",
        "part_of": "属于",
        "blocked_by": "受阻于",
        "blocks": "阻塞",
        "works_around": "绕开",
        "proposed": "提出了",
        "reconciles": "协调",
        "depends_on": "依赖",
        "owns": "拥有",
    },
    "en": {
        RESPONSIBLE_FOR: "is responsible for",
        "part_of": "is part of",
        "blocked_by": "is blocked by",
        "works_around": "works around",
        "depends_on": "depends on",
    },
}
_VALUES: dict[Lang, dict[str, str]] = {
    "zh": {
        "suggested": "待确认",
        "confirmed": "已确认",
        "rejected": "已拒绝",
        "true": "是",
        "false": "否",
        "candidate": "候选",
        "main": "主实体",
        "pending": "待处理",
        "accepted": "已接受",
        "dismissed": "已忽略",
    },
    "en": {},
}
_KINDS: dict[Lang, dict[str, str]] = {
    "zh": {
        "story": "故事",
        "event": "事件",
        "entity": "实体",
        "relation": "关系",
        "suggestion": "建议",
        "summary": "阶段总结",
        "signal": "信号",
    },
    "en": {},
}
_VERBS: dict[Lang, dict[DiffKind, str]] = {
    "zh": {
        DiffKind.ADDED: "新增了",
        DiffKind.REVISED: "修改了",
        DiffKind.RETRACTED: "撤回了",
        DiffKind.REMOVED: "移除了",
        DiffKind.RESTORED: "恢复了",
    },
    "en": {
        DiffKind.ADDED: "added",
        DiffKind.REVISED: "revised",
        DiffKind.RETRACTED: "retracted",
        DiffKind.REMOVED: "removed",
        DiffKind.RESTORED: "restored",
    },
}
_ID_FIELDS = frozenset({"from_id", "to_id", "target_id", "story_id"})
_ID_LIST_FIELDS = frozenset({"event_ids", "entity_ids"})
_FIELD_LIST_FIELDS = frozenset({"user_fields", "confirmed_fields"})
EMPTY: dict[Lang, str] = {"zh": "（空）", "en": "(empty)"}


@dataclass(frozen=True)
class Labels:
    """What a person calls the objects a change touches: entity, event and story names by
    id, and each relation's (from, type, to)."""

    names: Mapping[str, str] = field(default_factory=dict)
    relations: Mapping[str, tuple[str, str, str]] = field(default_factory=dict)

    def name(self, object_id: str, lang: Lang = "zh") -> str:
        ends = self.relations.get(object_id)
        if ends is not None:
            return relation_phrase(*ends, self.names, lang)
        return self.names.get(object_id, object_id)


def relation_word(relation_type: str, lang: Lang = "zh") -> str:
    return _RELATION_TYPES[lang].get(relation_type, relation_type)


def relation_phrase(from_id: str, relation_type: str, to_id: str, names: Names, lang: Lang) -> str:
    """A relation as a person reads it: 张三 负责 需求文档."""
    word = relation_word(relation_type, lang)
    return f"{names.get(from_id, from_id)} {word} {names.get(to_id, to_id)}"


def field_word(name: str, lang: Lang = "zh", relation_type: str | None = None) -> str:
    """A stored field's name as a word (`from_id` of a responsibility: 负责人)."""
    if relation_type in _RELATION_TYPES[lang] and name in _HOLDER_FIELDS[lang]:
        return _HOLDER_FIELDS[lang][name]
    return _FIELDS[lang].get(name, name.replace("_", " "))


def kind_word(object_kind: str, lang: Lang = "zh") -> str:
    return _KINDS[lang].get(object_kind, object_kind)


def value_words(
    name: str,
    value: str | None,
    names: Names,
    lang: Lang = "zh",
    relation_type: str | None = None,
) -> str | None:
    """A field's value as text a person reads: ids as names, field lists as words, stored
    words (confirmed, true) in the reader's language; None stays None (no value)."""
    if value is None:
        return None
    if name in _ID_FIELDS:
        return names.get(value, value)
    if name in _ID_LIST_FIELDS | _FIELD_LIST_FIELDS:
        parts = [p.strip() for p in value.split(",") if p.strip()]
        if name in _FIELD_LIST_FIELDS:
            shown = [field_word(p, lang, relation_type) for p in parts]
        else:
            shown = [names.get(p, p) for p in parts]
        return ("、" if lang == "zh" else ", ").join(shown)
    return _VALUES[lang].get(value, value)


def actor_name(actor: Actor | None, names: Names, lang: Lang = "zh") -> str:
    """Who did it, as a name: a person by their name (or token name), a run as automatic
    review with its id."""
    if actor is None:
        return "未知" if lang == "zh" else "unknown"
    if actor.kind is ActorKind.RUN:
        return f"自动整理（{actor.id}）" if lang == "zh" else f"automatic review ({actor.id})"
    return names.get(actor.id, actor.id)


def _quoted(text: str | None, lang: Lang) -> str:
    shown = EMPTY[lang] if text is None or text == "" else text
    return f"「{shown}」" if lang == "zh" else f"“{shown}”"


def entry_name(entry: DiffEntry, labels: Labels, lang: Lang = "zh") -> str:
    """What a person calls the changed object: its name; a summary by its opening words; a
    suggestion by the object and field it is about."""
    if entry.object_id in labels.names or entry.object_id in labels.relations:
        return labels.name(entry.object_id, lang)
    after = {f.field: f.after for f in entry.fields}
    if entry.object_kind == "summary" and after.get("text"):
        text = str(after["text"])
        return text if len(text) <= 24 else text[:23] + "…"
    if entry.object_kind == "suggestion" and after.get("target_id"):
        target = labels.name(str(after["target_id"]), lang)
        fieldname = field_word(str(after.get("field") or ""), lang)
        return f"{target}的{fieldname}" if lang == "zh" else f"the {fieldname} of {target}"
    return entry.object_id


def diff_sentence(entry: DiffEntry, labels: Labels, lang: Lang = "zh") -> str:
    """One change as a sentence: who did what to which object, and for a revision each
    field's before → after in words."""
    who = actor_name(entry.by, labels.names, lang)
    if entry.by is None and entry.result_id:
        who = f"整理结果（{entry.result_id}）" if lang == "zh" else f"result {entry.result_id}"
    verb = _VERBS[lang][entry.change]
    name = _quoted(entry_name(entry, labels, lang), lang)
    what = f"{kind_word(entry.object_kind, lang)}{'' if lang == 'zh' else ' '}{name}"
    head = f"{who}{verb}{what}" if lang == "zh" else f"{who} {verb} {what}"
    if entry.change is not DiffKind.REVISED or not entry.fields:
        return head
    ends = labels.relations.get(entry.object_id)
    relation_type = ends[1] if ends else None
    parts = [
        f"{field_word(f.field, lang, relation_type)}"
        f"{_quoted(value_words(f.field, f.before, labels.names, lang, relation_type), lang)} → "
        f"{_quoted(value_words(f.field, f.after, labels.names, lang, relation_type), lang)}"
        for f in entry.fields
    ]
    sep = "；" if lang == "zh" else "; "
    return head + ("：" if lang == "zh" else ": ") + sep.join(parts)


def ids_in(entries: list[DiffEntry]) -> list[str]:
    """Every id the entries' sentences name: the objects, the id-valued fields, the actors."""
    found: set[str] = set()
    for e in entries:
        found.add(e.object_id)
        if e.by is not None and e.by.kind is not ActorKind.RUN:
            found.add(e.by.id)
        for f in e.fields:
            for v in (f.before, f.after):
                if v is None:
                    continue
                if f.field in _ID_FIELDS:
                    found.add(v)
                elif f.field in _ID_LIST_FIELDS:
                    found.update(p.strip() for p in v.split(",") if p.strip())
    return sorted(found)


def suggestion_target(s: Suggestion, labels: Labels, lang: Lang = "zh") -> str:
    """The object a suggestion is about, as a person calls it."""
    return labels.name(s.target_id, lang)


def suggestion_field(s: Suggestion, labels: Labels, lang: Lang = "zh") -> str:
    ends = labels.relations.get(s.target_id)
    return field_word(s.field, lang, ends[1] if ends else None)


def suggestion_values(s: Suggestion, labels: Labels, lang: Lang = "zh") -> tuple[str, str]:
    """(current, proposed) as a person reads them: the labels the proposal stored (a
    holder's name) or the values in words."""
    current = s.current_label or value_words(s.field, s.current_value, labels.names, lang) or ""
    proposed = s.proposed_label or value_words(s.field, s.proposed_value, labels.names, lang) or ""
    return current, proposed


def suggestion_sentence(s: Suggestion, labels: Labels, lang: Lang = "zh") -> str:
    """A pending suggestion or difference as one sentence: which object, which field in
    words, current → proposed, and who proposed it."""
    target = _quoted(suggestion_target(s, labels, lang), lang)
    fieldname = suggestion_field(s, labels, lang)
    current, proposed = suggestion_values(s, labels, lang)
    who = actor_name(s.by, labels.names, lang)
    if lang == "en":
        what = "pending difference" if s.kind is SuggestionKind.DIFFERENCE else "proposed change"
        return (
            f"{what}: the {fieldname} of {target} {_quoted(current, lang)} → "
            f"{_quoted(proposed, lang)} (proposed by {who})"
        )
    what = "待确认的差异" if s.kind is SuggestionKind.DIFFERENCE else "建议修改"
    return (
        f"{what}：{target}的{fieldname}{_quoted(current, lang)} → {_quoted(proposed, lang)}"
        f"（{who}提出）"
    )


def suggestion_ids(suggestions: list[Suggestion]) -> list[str]:
    """The ids a suggestion's sentence names: its target, id values, and its proposer."""
    found: set[str] = set()
    for s in suggestions:
        found.add(s.target_id)
        if s.field in _ID_FIELDS:
            found.update(v for v in (s.current_value, s.proposed_value) if v)
        if s.by.kind is not ActorKind.RUN:
            found.add(s.by.id)
    return sorted(found)
