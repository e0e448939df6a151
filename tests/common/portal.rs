//! The developer portal driven as a browser drives it: a server whose sign-in mail goes to
//! an [`SmtpSink`], signing in through the mailed link, the dashboard's forms, and the
//! OAuth consent a signed-in person gives an MCP client; with the readers of cookies,
//! redirects and form fields these pages need.

use reqwest::header::{COOKIE, LOCATION, SET_COOKIE};
use serde_json::{Value, json};

use crate::ledger::{Backend, TestDb, fresh_db};
use crate::smtp::SmtpSink;
use crate::{TestApp, admin, spawn_app_with};

/// Where the tests' OAuth clients are sent back to.
pub const REDIRECT_URI: &str = "http://127.0.0.1:9/cb";

/// A server with the portal's mail going to a sink, and a browser that shows redirects.
pub struct Portal {
    pub app: TestApp,
    pub sink: SmtpSink,
    /// The ledger's address as the server reaches it.
    pub database_url: String,
    /// The database this server made, removed with it (none when it shares another's).
    db: Option<TestDb>,
    pub http: reqwest::Client,
}

impl Portal {
    /// A server on a fresh SQLite ledger.
    pub async fn start(extra: &[(&str, &str)]) -> Portal {
        Portal::start_on(Backend::Sqlite, extra).await
    }

    pub async fn start_on(backend: Backend, extra: &[(&str, &str)]) -> Portal {
        let db = fresh_db(backend).await;
        let url = db.url.clone();
        Portal::serve(Some(db), url, extra).await
    }

    /// Another server on `self`'s ledger (its own address, so its own `/mcp` resource).
    pub async fn beside(&self, extra: &[(&str, &str)]) -> Portal {
        Portal::serve(None, self.database_url.clone(), extra).await
    }

    /// A server whose ledger is reached at `database_url` (the database's own address, or
    /// a proxy in front of it), keeping `db` as long as it runs.
    pub async fn serve(db: Option<TestDb>, database_url: String, extra: &[(&str, &str)]) -> Portal {
        let sink = SmtpSink::start().await;
        let mut env = vec![
            ("MANABI_SMTP_URL", sink.url.as_str()),
            ("MANABI_DATABASE_URL", database_url.as_str()),
            ("MANABI_KEY_RATE_PER_SEC", "0"),
        ];
        env.extend_from_slice(extra);
        let app = spawn_app_with(&env).await;
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client");
        Portal {
            app,
            sink,
            database_url,
            db,
            http,
        }
    }

    /// The database this server made.
    pub fn db(&self) -> &TestDb {
        self.db.as_ref().expect("a server that made its database")
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.app.address)
    }

    /// The sign-in form's CSRF cookie and field.
    pub async fn signed_out_csrf(&self) -> String {
        let response = self.http.get(self.url("/developers")).send().await.unwrap();
        assert_eq!(response.status(), 200);
        cookie_value(&response, "manabi_csrf").expect("a CSRF cookie")
    }

    /// Asks for a link for `email` and returns its secret, from the mail.
    pub async fn mailed_link(&self, email: &str) -> String {
        let csrf = self.signed_out_csrf().await;
        let response = self
            .http
            .post(self.url("/developers/sign-in"))
            .header(COOKIE, format!("manabi_csrf={csrf}"))
            .form(&[("email", email), ("csrf", csrf.as_str())])
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{}", response.text().await.unwrap());
        let link = self.sink.last_link().await;
        link.rsplit('/').next().expect("a secret").to_owned()
    }

    /// Confirms a link from its confirmation page's form: the session cookie, or the
    /// refusal status.
    pub async fn confirm(&self, secret: &str, planted: Option<&str>) -> Result<String, u16> {
        let extra = planted.map(|planted| format!("manabi_session={planted}"));
        let response = self.confirm_with(secret, extra.as_deref()).await;
        if response.status() != 303 {
            return Err(response.status().as_u16());
        }
        assert_eq!(response.headers()[LOCATION], "/developers");
        Ok(cookie_value(&response, "manabi_session").expect("a session cookie"))
    }

    /// Posts the confirmation form of a link, sending `extra` cookies along.
    pub async fn confirm_with(&self, secret: &str, extra: Option<&str>) -> reqwest::Response {
        let csrf = self.signed_out_csrf().await;
        let mut cookies = format!("manabi_csrf={csrf}");
        if let Some(extra) = extra {
            cookies.push_str(&format!("; {extra}"));
        }
        self.http
            .post(self.url("/developers/sign-in/confirm"))
            .header(COOKIE, cookies)
            .form(&[("token", secret), ("csrf", csrf.as_str())])
            .send()
            .await
            .unwrap()
    }

    /// Signs in by the mailed link, as the portal's form does; the session cookie.
    pub async fn sign_in(&self, email: &str) -> String {
        let secret = self.mailed_link(email).await;
        self.confirm(&secret, None).await.expect("signed in")
    }

    pub async fn dashboard(&self, session: &str) -> String {
        let page = self.get_signed_in(session, "/developers").await;
        assert_eq!(page.status(), 200);
        page.text().await.unwrap()
    }

    pub async fn get_signed_in(&self, session: &str, path: &str) -> reqwest::Response {
        self.http
            .get(self.url(path))
            .header(COOKIE, format!("manabi_session={session}"))
            .send()
            .await
            .unwrap()
    }

    /// A call at `path` with a key (or an access token) as the bearer.
    pub async fn get_with_key(&self, path: &str, key: &str) -> reqwest::Response {
        let request = self.http.get(self.url(path)).bearer_auth(key);
        request.send().await.unwrap()
    }

    pub async fn post(
        &self,
        session: &str,
        path: &str,
        form: &[(&str, &str)],
    ) -> reqwest::Response {
        self.http
            .post(self.url(path))
            .header(COOKIE, format!("manabi_session={session}"))
            .form(form)
            .send()
            .await
            .unwrap()
    }

    /// Creates a key named `name` from the dashboard's form: its secret, shown once.
    pub async fn create_key(&self, session: &str, csrf: &str, name: &str) -> String {
        let form = [("csrf", csrf), ("name", name)];
        let created = self.post(session, "/developers/keys", &form).await;
        assert_eq!(created.status(), 200);
        key_secret(&created.text().await.unwrap())
    }

    /// Revokes the key `key_id` from the dashboard's form.
    pub async fn revoke_key(&self, session: &str, csrf: &str, key_id: &str) -> reqwest::Response {
        let path = format!("/developers/keys/{key_id}/revoke");
        self.post(session, &path, &[("csrf", csrf)]).await
    }

    /// Registers a public OAuth client returning to [`REDIRECT_URI`].
    pub async fn register(&self, name: &str) -> reqwest::Response {
        let metadata = json!({"client_name": name, "redirect_uris": [REDIRECT_URI]});
        let request = self.http.post(self.url("/oauth/register")).json(&metadata);
        request.send().await.unwrap()
    }

    /// The id of a client registered as [`Portal::register`] does.
    pub async fn register_client(&self, name: &str) -> String {
        let registered: Value = self.register(name).await.json().await.unwrap();
        registered["client_id"].as_str().unwrap().to_owned()
    }

    /// `GET /oauth/authorize` for `client_id` and this server's `/mcp`: status and page.
    pub async fn authorize(&self, session: Option<&str>, client_id: &str) -> (u16, String) {
        let path = authorize_path(client_id, &self.url("/mcp"));
        let mut request = self.http.get(self.url(&path));
        if let Some(session) = session {
            request = request.header(COOKIE, format!("manabi_session={session}"));
        }
        let response = request.send().await.unwrap();
        (response.status().as_u16(), response.text().await.unwrap())
    }

    /// Allow on the consent page: where the client is sent back to (see [`code_in`]).
    pub async fn allow(&self, session: &str, consent_page: &str) -> String {
        let mut form = consent_fields(consent_page);
        form.push(("decision".to_owned(), "allow".to_owned()));
        let allowed = self
            .http
            .post(self.url("/oauth/authorize"))
            .header(COOKIE, format!("manabi_session={session}"))
            .form(&form)
            .send()
            .await
            .unwrap();
        assert_eq!(allowed.status(), 303);
        location(&allowed)
    }

    /// `POST /oauth/token` for a code with `verifier`, asking for `resource`.
    pub async fn exchange(
        &self,
        client_id: &str,
        code: &str,
        verifier: &str,
        resource: &str,
    ) -> (u16, Value) {
        let response = self
            .http
            .post(self.url("/oauth/token"))
            .form(&[
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", REDIRECT_URI),
                ("client_id", client_id),
                ("code_verifier", verifier),
                ("resource", resource),
            ])
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap())
    }

    /// A billed `search_learnables` tool call at `path` with `token`.
    pub async fn mcp_call(&self, path: &str, token: &str) -> reqwest::Response {
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "search_learnables", "arguments": {"query": "taberu"}}});
        self.http
            .post(self.url(path))
            .bearer_auth(token)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .json(&request)
            .send()
            .await
            .unwrap()
    }
}

/// The cookies a response sets, as name and value.
pub fn set_cookies(response: &reqwest::Response) -> Vec<(String, String)> {
    response
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .filter_map(|value| {
            let (name, value) = value.split(';').next()?.split_once('=')?;
            Some((name.to_owned(), value.to_owned()))
        })
        .collect()
}

/// The value a response sets the cookie `name` to.
pub fn cookie_value(response: &reqwest::Response, name: &str) -> Option<String> {
    set_cookies(response)
        .into_iter()
        .find_map(|(key, value)| (key == name).then_some(value))
}

/// Where a redirect points.
pub fn location(response: &reqwest::Response) -> String {
    response.headers()[LOCATION].to_str().unwrap().to_owned()
}

/// The hidden `csrf` field of a page.
pub fn csrf_field(html: &str) -> String {
    let marker = "name=\"csrf\" value=\"";
    let start = html.find(marker).expect("a csrf field") + marker.len();
    html[start..start + 64].to_owned()
}

/// The key secret a page shows (once, after the key is created).
pub fn key_secret(html: &str) -> String {
    let start = html.find("svc_ak_").expect("the secret shown once");
    html[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// The id of the first key in the dashboard's list, from its revoke form.
pub fn key_id(html: &str) -> String {
    id_after(html, "/developers/keys/")
}

/// The signed-in account's id, from the dashboard's note on granting points.
pub fn account_id(html: &str) -> String {
    id_after(html, "--account ")
}

/// The UUID right after the first `marker` of a page.
fn id_after(html: &str, marker: &str) -> String {
    let start = html
        .find(marker)
        .unwrap_or_else(|| panic!("{marker:?} in the page"))
        + marker.len();
    html[start..start + 36].to_owned()
}

/// An operator grants `points` to `account_id` (`manabi admin topup --kind grant`).
pub fn grant_points(database_url: &str, account_id: &str, points: i64, idempotency_key: &str) {
    let points = points.to_string();
    let args = [
        "topup",
        "--account",
        account_id,
        "--points",
        &points,
        "--idempotency-key",
        idempotency_key,
        "--kind",
        "grant",
    ];
    admin(database_url, &args);
}

/// The PKCE verifier of the tests' authorization requests.
pub fn verifier() -> String {
    "v".repeat(50)
}

/// `/oauth/authorize` for `client_id` and `resource`, with the S256 challenge of
/// [`verifier`] and the state `xyz`.
pub fn authorize_path(client_id: &str, resource: &str) -> String {
    use base64::Engine;
    use sha2::Digest;
    let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(sha2::Sha256::digest(verifier().as_bytes()));
    let query = form_urlencoded::Serializer::new(String::new())
        .append_pair("response_type", "code")
        .append_pair("client_id", client_id)
        .append_pair("redirect_uri", REDIRECT_URI)
        .append_pair("code_challenge", &challenge)
        .append_pair("code_challenge_method", "S256")
        .append_pair("state", "xyz")
        .append_pair("resource", resource)
        .finish();
    format!("/oauth/authorize?{query}")
}

/// The code in a redirect to [`REDIRECT_URI`].
pub fn code_in(location: &str) -> String {
    let query = location
        .strip_prefix(&format!("{REDIRECT_URI}?"))
        .unwrap_or_else(|| panic!("{location}"));
    form_urlencoded::parse(query.as_bytes())
        .find(|(name, _)| name == "code")
        .map(|(_, code)| code.into_owned())
        .expect("a code")
}

/// The hidden fields of the consent form.
pub fn consent_fields(html: &str) -> Vec<(String, String)> {
    let unescape = |value: &str| {
        value
            .replace("&#x2f;", "/")
            .replace("&#x3a;", ":")
            .replace("&amp;", "&")
    };
    html.split("<input type=\"hidden\" name=\"")
        .skip(1)
        .map(|chunk| {
            let (name, rest) = chunk.split_once('"').unwrap();
            let value = rest.split("value=\"").nth(1).unwrap().split('"').next();
            (name.to_owned(), unescape(value.unwrap()))
        })
        .collect()
}
