from django.contrib import admin

from gorod.models import CodeAttempt, GorodGame, Level, Route, Ruling


class LevelInline(admin.StackedInline):
    # Levels are edited here before the start (task, hints, limit, codes JSON:
    # {"code": "G1R12345D"} or {"sectors": [...]}, see gorod.codes.level_codes_from_dict).
    model = Level
    extra = 0


class ReadOnlyInline(admin.TabularInline):
    # Attempts and rulings go through the services, which check them with the engine.
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class RulingInline(ReadOnlyInline):
    model = Ruling


@admin.register(GorodGame)
class GorodGameAdmin(admin.ModelAdmin):
    list_display = ["game", "status", "started_at", "ended_at"]
    # The services own the status, the times and the clock's fields.
    readonly_fields = ["status", "started_at", "ended_at", "team_order", "next_deadline",
                       "clock_failures"]
    inlines = [LevelInline, RulingInline]


@admin.register(CodeAttempt)
class CodeAttemptAdmin(admin.ModelAdmin):
    list_display = ["at", "gorod", "application", "level", "text", "verdict", "sector",
                    "closes_level"]
    list_filter = ["verdict", "gorod"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Route)
class RouteAdmin(admin.ModelAdmin):
    list_display = ["gorod", "application", "levels"]
