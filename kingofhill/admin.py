from django.contrib import admin

from kingofhill.models import Answer, Declaration, KothGame, PartnerChange, Question, VerdictChange


@admin.register(KothGame)
class KothGameAdmin(admin.ModelAdmin):
    list_display = ["game", "status", "summit", "main_questions", "reserve_questions", "version"]
    # The snapshot is derived; edit events through the host console so the board stays true.
    readonly_fields = ["version", "board", "team_order", "started_at", "finished_at"]


class ReadOnlyInline(admin.TabularInline):
    # Edits here would bypass the services, leaving the stored board and screens stale.
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class DeclarationInline(ReadOnlyInline):
    model = Declaration


class AnswerInline(ReadOnlyInline):
    model = Answer


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    list_display = ["koth", "number", "partner", "announced_at", "closed_at"]
    list_filter = ["koth"]
    inlines = [DeclarationInline, AnswerInline]


@admin.register(VerdictChange)
class VerdictChangeAdmin(admin.ModelAdmin):
    list_display = ["answer", "old", "new", "changed_by", "changed_at"]


@admin.register(PartnerChange)
class PartnerChangeAdmin(admin.ModelAdmin):
    list_display = ["question", "old", "new", "changed_by", "changed_at"]
