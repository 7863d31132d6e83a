"""Application password routes (cms-api.md 6.4, acceptance 8.9)."""

from __future__ import annotations

import base64
import re

CHUNKED = re.compile(r"^([A-Za-z0-9]{4} ){5}[A-Za-z0-9]{4}$")
UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def basic(login, password):
    return {"Authorization": "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode()}


def test_create_shows_the_password_once(client, accounts):
    subscriber = accounts["subscriber"]
    response = client.post("/cms/v2/users/me/application-passwords", json={"name": "App"}, user=subscriber)
    assert response.status_code == 201
    body = response.json
    assert CHUNKED.match(body["password"])
    assert UUID4.match(body["uuid"])
    assert body["app_id"] == "" and body["name"] == "App"
    assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$", body["created"])
    assert body["last_used"] is None and body["last_ip"] is None
    assert list(body) == ["uuid", "app_id", "name", "created", "last_used", "last_ip", "password", "_links"]
    location = f"http://example.test/cms/v2/users/{subscriber.id}/application-passwords/{body['uuid']}"
    assert response.headers["location"] == location
    assert body["_links"]["self"][0]["href"] == location
    assert response.headers["allow"] == "GET, POST, DELETE"
    listed = client.get(f"/cms/v2/users/{subscriber.id}/application-passwords", user=subscriber).json
    assert all("password" not in item for item in listed)
    assert body["uuid"] in [item["uuid"] for item in listed]
    # The new password works, chunked or not.
    for form in (body["password"], body["password"].replace(" ", "")):
        me = client.get("/cms/v2/users/me", headers=basic(subscriber.login, form))
        assert me.status_code == 200 and me.json["id"] == subscriber.id


def test_app_id_and_name_validation(client, admin):
    app_id = "6f1e3c1a-2b3c-4d5e-8f90-123456789abc"
    ok = client.post("/cms/v2/users/me/application-passwords", json={"name": "A", "app_id": app_id}, user=admin)
    assert ok.status_code == 201 and ok.json["app_id"] == app_id
    bad = client.post("/cms/v2/users/me/application-passwords", json={"name": "A", "app_id": "not-a-uuid"}, user=admin)
    assert bad.status_code == 400 and bad.json["code"] == "rest_invalid_param"
    missing = client.post("/cms/v2/users/me/application-passwords", json={}, user=admin)
    assert missing.status_code == 400
    assert missing.json == {"code": "rest_missing_callback_param", "message": "Missing parameter(s): name", "data": {"status": 400, "params": ["name"]}}
    blank = client.post("/cms/v2/users/me/application-passwords", json={"name": " "}, user=admin)
    assert blank.status_code == 400 and blank.json["code"] == "rest_invalid_param"
    duplicate = client.post("/cms/v2/users/me/application-passwords", json={"name": "A"}, user=admin)
    assert duplicate.status_code == 201


def test_permissions(client, accounts, admin):
    subscriber = accounts["subscriber"]
    other = client.get(f"/cms/v2/users/{admin.id}/application-passwords", user=subscriber)
    assert other.status_code == 403 and other.json["code"] == "rest_cannot_list_application_passwords"
    anonymous = client.get(f"/cms/v2/users/{admin.id}/application-passwords")
    assert anonymous.status_code == 401 and anonymous.json["code"] == "rest_cannot_list_application_passwords"
    me_anon = client.get("/cms/v2/users/me/application-passwords")
    assert me_anon.status_code == 401 and me_anon.json["code"] == "rest_not_logged_in"
    unknown = client.get("/cms/v2/users/999999/application-passwords", user=admin)
    assert unknown.status_code == 404 and unknown.json["code"] == "rest_user_invalid_id"
    created = client.post(f"/cms/v2/users/{subscriber.id}/application-passwords", json={"name": "by admin"}, user=admin)
    assert created.status_code == 201
    assert client.get(f"/cms/v2/users/{subscriber.id}/application-passwords", user=admin).status_code == 200
    create_other = client.post(f"/cms/v2/users/{admin.id}/application-passwords", json={"name": "x"}, user=subscriber)
    assert create_other.status_code == 403 and create_other.json["code"] == "rest_cannot_create_application_passwords"


def test_read_rename_delete(client, admin):
    created = client.post("/cms/v2/users/me/application-passwords", json={"name": "Old"}, user=admin).json
    item_path = f"/cms/v2/users/me/application-passwords/{created['uuid']}"
    got = client.get(item_path, user=admin)
    assert got.status_code == 200 and got.json["name"] == "Old" and "password" not in got.json
    assert got.headers["allow"] == "GET, POST, PUT, PATCH, DELETE"
    renamed = client.put(item_path, json={"name": "New"}, user=admin)
    assert renamed.status_code == 200 and renamed.json["name"] == "New"
    deleted = client.delete(item_path, user=admin)
    assert deleted.status_code == 200
    assert deleted.json["deleted"] is True
    assert deleted.json["previous"]["uuid"] == created["uuid"] and "_links" not in deleted.json["previous"]
    gone = client.get(item_path, user=admin)
    assert gone.status_code == 404
    assert gone.json == {"code": "rest_application_password_not_found", "message": "Application password not found.", "data": {"status": 404}}
    revoked = client.get("/cms/v2/users/me", headers=basic(admin.login, created["password"]))
    assert revoked.status_code == 401 and revoked.json["code"] == "incorrect_password"


def test_delete_all(client, admin):
    client.post("/cms/v2/users/me/application-passwords", json={"name": "one"}, user=admin)
    client.post("/cms/v2/users/me/application-passwords", json={"name": "two"}, user=admin)
    response = client.delete(f"/cms/v2/users/{admin.id}/application-passwords", user=admin)
    assert response.status_code == 200
    assert response.json == {"deleted": True, "count": 3}  # the fixture's own password counts too
    assert client.get("/cms/v2/users/me", user=admin).status_code == 401


def test_introspect(client, accounts, admin):
    response = client.get("/cms/v2/users/me/application-passwords/introspect", user=admin)
    assert response.status_code == 200
    assert response.json["uuid"] == admin.app_password_uuid
    assert response.json["last_used"] is not None and response.json["last_ip"] is not None
    assert response.headers["allow"] == "GET"
    other = client.get(f"/cms/v2/users/{accounts['subscriber'].id}/application-passwords/introspect", user=admin)
    assert other.status_code == 403
    assert other.json["code"] == "rest_cannot_introspect_app_password_for_non_authenticated_user"
    anonymous = client.get("/cms/v2/users/me/application-passwords/introspect")
    assert anonymous.status_code == 401 and anonymous.json["code"] == "rest_not_logged_in"


def test_unavailable_outside_https_and_local(tmp_path, db_url):
    from appfixtures import RestClient, create_account

    from calpress.app import Calpress
    from calpress.config import load_settings

    settings = load_settings(
        {"data_dir": str(tmp_path / "prod"), "database_url": db_url, "secret_key": "k" * 32, "environment": "production", "site_url": "http://plain.example"},
        environ={},
    )
    app = Calpress(settings)
    try:
        client = RestClient(app)
        account = create_account(app, "prod", "administrator")
        assert client.get("/").json["authentication"] == []
        basic_auth = client.get("/cms/v2/users/me", user=account)
        assert basic_auth.status_code == 401 and basic_auth.json["code"] == "application_passwords_disabled"
        routes = client.get(f"/cms/v2/users/{account.id}/application-passwords")
        assert routes.status_code == 501 and routes.json["code"] == "application_passwords_disabled"
    finally:
        app.site.close()
