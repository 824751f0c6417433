from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static


def home(request):
    return render(request, "core/home.html")


def healthz(request):
    return JsonResponse({"ok": True})


def favicon(request):
    # Browsers and bookmark tools ask for /favicon.ico whatever the page's <link> says.
    return redirect(static("favicon.svg"), permanent=True)
