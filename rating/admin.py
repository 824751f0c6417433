from django.contrib import admin

from rating.models import GameResult, OrganizerVote, Protest, ResultChange, ResultRow, Season


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    list_display = ("title", "format", "created_at")
    list_filter = ("format",)
    filter_horizontal = ("games",)


class ReadOnlyInline(admin.TabularInline):
    # Rows and votes change through the results page (``rating.services``), which checks the
    # table as a whole, logs the reason and keeps the cached season tables right.
    extra = 0

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ResultRowInline(ReadOnlyInline):
    model = ResultRow


class OrganizerVoteInline(ReadOnlyInline):
    model = OrganizerVote


@admin.register(GameResult)
class GameResultAdmin(admin.ModelAdmin):
    # Publishing, finalizing and re-opening go through the results page (``rating.services``),
    # which grants the prizes; the admin is for looking and for repairs.
    list_display = ("game", "status", "published_at", "finalized_at")
    list_filter = ("status", "game__format")
    readonly_fields = ("status", "published_at", "published_by", "finalized_at", "ended_at",
                       "finish_reason", "early_final_reason")
    inlines = [ResultRowInline, OrganizerVoteInline]


@admin.register(Protest)
class ProtestAdmin(admin.ModelAdmin):
    # Filing and answering go through the results page (``rating.services``).
    list_display = ("result", "team", "status", "created_at", "answered_at")
    list_filter = ("status",)


@admin.register(ResultChange)
class ResultChangeAdmin(admin.ModelAdmin):
    # The audit log is written by ``rating.services`` only.
    list_display = ("result", "action", "team", "actor", "at")
    list_filter = ("action",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
