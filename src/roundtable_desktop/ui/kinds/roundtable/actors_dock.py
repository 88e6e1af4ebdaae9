"""The Actors dock: who sits at the table, whose turn it is, and an editor for each seat.

The list marks the current actor (bold, a ▶ marker) with their role, human seats and
model overrides; its rows take their size from the list's font, so they follow zoom.
The editor changes an actor's prompt fields, model and role (Apply changes), and adds or
removes actors; the Human seat tick applies at once (the window then brings the Human
seat dock forward when it is that seat's turn). Every edit is the session's
`edit_actors` edit (kinds/roundtable/edit.py enforces the meeting rules), never a touch
of the state itself; the engine's sentence about it is shown. Edits are disabled in replay,
while a call runs and after the meeting ended; a disabled button's tooltip says why.
The three prompt fields share one tabbed editor that takes the dock's spare height, so
each stays several lines tall; when the dock is short the form scrolls (vertically only,
following the focused field) instead of squeezing the editors.
Must hold no engine logic.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.domain.refusal import Refusal
from roundtable_desktop.engine.base import Edit, Edited
from roundtable_desktop.kinds.roundtable.actors import Actor, Role
from roundtable_desktop.kinds.roundtable.edit import EDIT_ACTION, MAX_ACTORS
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import plain_tooltip
from roundtable_desktop.ui.kinds.roundtable.dock_base import RoundtableDock

_ID_ROLE = Qt.ItemDataRole.UserRole
_CURRENT_MARK = "▶ "
_OTHER_MARK = "    "
PROMPT_MIN_LINES = 5  # the prompt editor never gets shorter: the form scrolls instead


class ActorsDock(RoundtableDock):
    actorsEdited = Signal()

    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__("Actors", "actorsDock", bridge, parent)
        self._selected_id: str | None = None
        self._dirty = False
        self._loading = False

        self.actor_list = QListWidget()
        self.actor_list.setObjectName("actorList")
        self.actor_list.setAlternatingRowColors(True)
        # A narrow column ends long names in "…" (the tooltip has them whole) rather than
        # spending a row of the short list on a horizontal scroll bar.
        self.actor_list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.actor_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.actor_list.currentItemChanged.connect(self._on_actor_list_current_changed)

        self.name_edit = QLineEdit()
        self.role_combo = QComboBox()
        for role in Role:
            self.role_combo.addItem(role.value.capitalize(), role.value)
        self.model_edit = QLineEdit()
        self.model_edit.setPlaceholderText("session default")
        self.human_check = QCheckBox("A person writes the replies")
        self.human_check.setToolTip("A human seat: someone types this actor's replies in the "
                                    "Human seat dock instead of the model (applies at once).")
        self.personality_edit = _prompt_edit()
        self.goal_edit = _prompt_edit()
        self.grounding_edit = _prompt_edit()
        self.prompt_tabs = QTabWidget()
        self.prompt_tabs.setObjectName("actorPromptTabs")
        self.prompt_tabs.setDocumentMode(True)
        self.prompt_tabs.addTab(self.personality_edit, "Personality")
        self.prompt_tabs.addTab(self.goal_edit, "Goal")
        self.prompt_tabs.addTab(self.grounding_edit, "Grounding")
        self.prompt_tabs.setSizePolicy(QSizePolicy.Policy.Preferred,
                                       QSizePolicy.Policy.Expanding)
        self.interests_edit = QLineEdit()
        self.interests_edit.setPlaceholderText("comma-separated, e.g. rag, agents, evals")

        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        # At a large zoom a field that no longer fits beside its label goes below it.
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        form.addRow("Name", self.name_edit)
        form.addRow("Role", self.role_combo)
        form.addRow("Model", self.model_edit)
        form.addRow("Human seat", self.human_check)
        form.addRow("Interests", self.interests_edit)
        box_layout = QVBoxLayout()
        box_layout.addLayout(form)
        box_layout.addWidget(self.prompt_tabs, 1)
        self.editor_box = QGroupBox("Edit actor")
        self.editor_box.setLayout(box_layout)

        self.apply_button = QPushButton("Apply changes")
        self.apply_button.setObjectName("applyActorButton")
        self.revert_button = QPushButton("Revert")
        self.add_button = QPushButton("Add actor")
        self.remove_button = QPushButton("Remove actor")
        self.apply_button.clicked.connect(self._on_apply_clicked)
        self.revert_button.clicked.connect(self._on_revert_clicked)
        self.add_button.clicked.connect(self._on_add_clicked)
        self.remove_button.clicked.connect(self._on_remove_clicked)
        edit_row = QHBoxLayout()
        edit_row.addWidget(self.apply_button)
        edit_row.addWidget(self.revert_button)
        edit_row.addStretch(1)
        seat_row = QHBoxLayout()
        seat_row.addWidget(self.add_button)
        seat_row.addWidget(self.remove_button)
        seat_row.addStretch(1)

        self.message_label = QLabel()
        self.message_label.setObjectName("actorsMessage")
        self.message_label.setWordWrap(True)
        self.message_label.setTextFormat(Qt.TextFormat.PlainText)
        self.blocked_label = QLabel()
        self.blocked_label.setObjectName("actorsBlocked")
        self.blocked_label.setWordWrap(True)
        self.blocked_label.setTextFormat(Qt.TextFormat.PlainText)

        for widget in (self.name_edit, self.model_edit, self.interests_edit):
            widget.textChanged.connect(self._on_form_edited)
        for text_edit in (self.personality_edit, self.goal_edit, self.grounding_edit):
            text_edit.textChanged.connect(self._on_form_edited)
        self.role_combo.currentIndexChanged.connect(self._on_form_edited)
        self.human_check.toggled.connect(self._on_human_check_toggled)

        inner = QWidget()
        layout = QVBoxLayout(inner)
        layout.addWidget(self.actor_list)
        layout.addLayout(seat_row)
        layout.addWidget(self.blocked_label)
        layout.addWidget(self.editor_box, 1)
        layout.addLayout(edit_row)
        layout.addWidget(self.message_label)
        self.scroll_area = QScrollArea()
        self.scroll_area.setObjectName("actorsScroll")
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll_area.setWidget(inner)
        self.setWidget(self.scroll_area)
        for field in (self.name_edit, self.role_combo, self.model_edit, self.human_check,
                      self.interests_edit, self.personality_edit, self.goal_edit,
                      self.grounding_edit, self.apply_button):
            field.installEventFilter(self)

        bridge.stateChanged.connect(self._on_bridge_state_changed)
        bridge.phaseChanged.connect(self._on_bridge_phase_changed)
        self.refresh()

    # -- reading --------------------------------------------------------------------------
    def selected_actor_id(self) -> str | None:
        return self._selected_id

    def select_actor(self, actor_id: str) -> None:
        for row in range(self.actor_list.count()):
            item = self.actor_list.item(row)
            if item.data(_ID_ROLE) == actor_id:
                self.actor_list.setCurrentItem(item)
                return

    def current_marked_id(self) -> str | None:
        """The actor the list marks as speaking now."""
        for row in range(self.actor_list.count()):
            item = self.actor_list.item(row)
            if item.text().startswith(_CURRENT_MARK):
                return item.data(_ID_ROLE)
        return None

    # -- refresh --------------------------------------------------------------------------
    def refresh(self) -> None:
        state = self.state()
        actors = state.actors if state else []
        if self._selected_id not in {a.id for a in actors}:
            self._selected_id = state.actor.id if state else None
            self._dirty = False
        self.actor_list.blockSignals(True)
        self.actor_list.clear()
        for index, actor in enumerate(actors):
            current = state is not None and index == state.current
            item = QListWidgetItem(_list_text(actor, current))
            item.setData(_ID_ROLE, actor.id)
            item.setToolTip(plain_tooltip(f"{_list_text(actor, False).strip()}\nid: {actor.id}"))
            item.setFont(_weight_only(current))
            self.actor_list.addItem(item)
            if actor.id == self._selected_id:
                self.actor_list.setCurrentItem(item)
        self.actor_list.blockSignals(False)
        self._fit_list_height()
        if not self._dirty:
            self._load_form()
        self._update_enabled()

    def _fit_list_height(self) -> None:
        """Every seat (at most 7) without scrolling; the prompt editor takes the rest."""
        count = self.actor_list.count()
        row_height = self.actor_list.sizeHintForRow(0) if count else self.fontMetrics().height()
        bar = self.actor_list.horizontalScrollBar()
        extra = bar.sizeHint().height() if bar.isVisible() else 0
        self.actor_list.setFixedHeight(
            max(count, 2) * row_height + 2 * self.actor_list.frameWidth() + 4 + extra)

    def _on_theme_changed(self) -> None:
        self._fit_list_height()  # zoom changes the row height

    def _load_form(self) -> None:
        state = self.state()
        actor = state.actor_by_id(self._selected_id) if state and self._selected_id else None
        self._loading = True
        try:
            self.editor_box.setTitle(f"Edit {actor.name}" if actor else "Edit actor")
            self.name_edit.setText(actor.name if actor else "")
            role = actor.role if actor else Role.PARTICIPANT
            self.role_combo.setCurrentIndex(max(0, self.role_combo.findData(role.value)))
            self.model_edit.setText(actor.model or "" if actor else "")
            self.human_check.setChecked(bool(actor and actor.human))
            self.personality_edit.setPlainText(actor.personality if actor else "")
            self.goal_edit.setPlainText(actor.goal if actor else "")
            self.grounding_edit.setPlainText(actor.grounding if actor else "")
            self.interests_edit.setText(", ".join(actor.interests) if actor else "")
            for line in (self.name_edit, self.model_edit, self.interests_edit):
                line.setCursorPosition(0)  # show where the text starts, not where it ends
        finally:
            self._loading = False
        self._dirty = False
        self._update_enabled()

    def _update_enabled(self) -> None:
        blocked = self.blocked()
        state = self.state()
        has_actor = bool(state and self._selected_id)
        can_edit = not blocked and has_actor
        self.blocked_label.setText(blocked)
        self.blocked_label.setVisible(bool(blocked))
        self.editor_box.setEnabled(can_edit)
        no_actor = "Select an actor in the list first."
        unchanged = blocked or (no_actor if not has_actor else "Nothing was changed yet.")
        full = len(state.actors if state else []) >= MAX_ACTORS
        _enable(self.apply_button, can_edit and self._dirty, unchanged,
                "Apply the edits to this actor (from their next call on).")
        _enable(self.revert_button, can_edit and self._dirty, unchanged,
                "Undo the edits that were not applied.")
        _enable(self.add_button, not blocked and bool(state) and not full,
                blocked or f"The table is full ({MAX_ACTORS} seats).",
                "Add a guest seat at the end of the table.")
        _enable(self.remove_button, can_edit, blocked or no_actor,
                "Remove the selected actor from the table.")

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.FocusIn and isinstance(watched, QWidget):
            self.scroll_area.ensureWidgetVisible(watched, 0, 24)  # tabbing scrolls the form
        return super().eventFilter(watched, event)

    # -- slots ----------------------------------------------------------------------------
    def _on_bridge_state_changed(self, part: str) -> None:
        self.schedule_refresh()

    def _on_bridge_phase_changed(self, phase: str, actor_id: str, detail: str) -> None:
        self._update_enabled()

    def _on_actor_list_current_changed(
        self, current: QListWidgetItem | None, previous: QListWidgetItem | None
    ) -> None:
        if current is None:
            return
        self._selected_id = current.data(_ID_ROLE)
        self.message_label.clear()
        self._load_form()

    def _on_form_edited(self, *args: object) -> None:
        if self._loading:
            return
        self._dirty = True
        self._update_enabled()

    def _on_human_check_toggled(self, checked: bool) -> None:
        """The seat changes hands at once: no Apply needed, other edits stay pending."""
        if self._loading or self.state() is None or self._selected_id is None:
            return
        done = self._edit("update", self._selected_id, {"human": checked})
        if done is None:
            self._loading = True  # put the tick back without coming here again
            self.human_check.setChecked(not checked)
            self._loading = False
            return
        self._finish_edit(done.message)

    def _on_apply_clicked(self) -> None:
        if self.state() is None or self._selected_id is None:
            return
        fields = {
            "name": self.name_edit.text(),
            "role": self.role_combo.currentData(),
            "model": self.model_edit.text(),
            "human": self.human_check.isChecked(),
            "personality": self.personality_edit.toPlainText(),
            "goal": self.goal_edit.toPlainText(),
            "grounding": self.grounding_edit.toPlainText(),
            "interests": self.interests_edit.text(),
        }
        done = self._edit("update", self._selected_id, fields)
        if done is None:
            return
        self._dirty = False
        self._finish_edit(done.message)

    def _on_revert_clicked(self) -> None:
        self.message_label.clear()
        self._load_form()

    def _on_add_clicked(self) -> None:
        if self.state() is None:
            return
        done = self._edit("add")
        if done is None:
            return
        self._selected_id = done.actor_id
        self._dirty = False
        self._finish_edit(done.message)

    def _on_remove_clicked(self) -> None:
        if self.state() is None or self._selected_id is None:
            return
        done = self._edit("remove", self._selected_id)
        if done is None:
            return
        self._selected_id = None
        self._dirty = False
        self._finish_edit(done.message)

    def _edit(self, change: str, actor_id: str | None = None,
              fields: dict[str, object] | None = None) -> Edited | None:
        """The `edit_actors` edit as made, or None when refused (the reason is shown)."""
        try:
            return self.edit_session(Edit(id=EDIT_ACTION, params={
                "change": change, "actor_id": actor_id, "fields": fields or {}}))
        except Refusal as exc:
            self._say(exc.message, error=True)
            return None

    def _finish_edit(self, message: str) -> None:
        self._say(message, error=False)
        self.refresh()
        self.actorsEdited.emit()

    def _say(self, message: str, *, error: bool) -> None:
        self.message_label.setProperty("error", error)
        color = "#c62828" if error else ""
        self.message_label.setStyleSheet(f"color: {color};" if color else "")
        self.message_label.setText(message)


def _prompt_edit() -> QPlainTextEdit:
    edit = _PromptEdit()
    edit.setTabChangesFocus(True)
    edit.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
    edit.fit_lines()
    return edit


class _PromptEdit(QPlainTextEdit):
    """A prompt editor at least PROMPT_MIN_LINES tall at the current zoom."""

    def fit_lines(self) -> None:
        line = self.fontMetrics().lineSpacing()
        self.setMinimumHeight(line * PROMPT_MIN_LINES + 2 * self.frameWidth() + 8)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self.fit_lines()


def _weight_only(bold: bool) -> QFont:
    """A font that sets only the weight: its size and family resolve from the list's own
    font, so zoom scales the rows with everything else and reset restores them exactly
    (a full copy of the list's font would freeze the size it had at that moment)."""
    font = QFont()
    font.setBold(bold)
    return font


def _enable(button: QPushButton, enabled: bool, why_not: str, what: str) -> None:
    button.setEnabled(enabled)
    button.setToolTip(what if enabled else why_not)


def _list_text(actor: Actor, current: bool) -> str:
    parts = [actor.name, actor.role.value]
    if actor.human:
        parts.append("human seat")
    if actor.model:
        parts.append(actor.model)
    return (_CURRENT_MARK if current else _OTHER_MARK) + " · ".join(parts)
