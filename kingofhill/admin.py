from django.contrib import admin

from kingofhill.models import Answer, Declaration, KothGame, PartnerChange, Question, VerdictChange


@admin.register(KothGame)
class KothGameAdmin(admin.ModelAdmin):
    list_display = ["game", "status", "summit", "main_questions", "reserve_questions"]
    # The status, the times and the board are the services'; edit events through the host
    # console so the board and every screen stay true.
    readonly_fields = ["status", "board", "board_generation", "team_order", "started_at",
                       "finished_at", "answers_after_zero"]


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
    # The services own the numbering, the partner mark (audited) and the question's times.
    readonly_fields = ["koth", "number", "partner", "announced_at", "closed_at"]
    inlines = [DeclarationInline, AnswerInline]


@admin.register(VerdictChange)
class VerdictChangeAdmin(admin.ModelAdmin):
    list_display = ["answer", "old", "new", "changed_by", "changed_at"]


@admin.register(PartnerChange)
class PartnerChangeAdmin(admin.ModelAdmin):
    list_display = ["question", "old", "new", "changed_by", "changed_at"]
