from django.contrib import admin

from rating.models import GameResult, OrganizerVote, Protest, ResultRow, Season


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    list_display = ("title", "format", "created_at")
    list_filter = ("format",)
    filter_horizontal = ("games",)


class ResultRowInline(admin.TabularInline):
    model = ResultRow
    extra = 0


class OrganizerVoteInline(admin.TabularInline):
    model = OrganizerVote
    extra = 0


@admin.register(GameResult)
class GameResultAdmin(admin.ModelAdmin):
    # Publishing, finalizing and re-opening go through the results page (``rating.services``),
    # which grants the prizes; the admin is for looking and for repairs.
    list_display = ("game", "status", "published_at", "finalized_at", "organizing_team")
    list_filter = ("status", "game__format")
    readonly_fields = ("status", "published_at", "published_by", "finalized_at")
    inlines = [ResultRowInline, OrganizerVoteInline]


@admin.register(Protest)
class ProtestAdmin(admin.ModelAdmin):
    # Filing and answering go through the results page (``rating.services``).
    list_display = ("result", "team", "status", "created_at", "answered_at")
    list_filter = ("status",)
