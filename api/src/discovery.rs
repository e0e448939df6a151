//! The discovery document and the credit-pack list, built once from the settings (the
//! endpoints from the operation table).

use manabi_schemas::params::SearchLimit;
use manabi_schemas::{
    CreditPack, CreditPacks, Discovery, FairUse, LocaleSupport, Mode, Pricing, X402Terms,
};

use crate::settings::Settings;

pub fn discovery(settings: &Settings, locales: &[LocaleSupport], mode: Mode) -> Discovery {
    Discovery {
        name: "manabi".to_owned(),
        description: "A curated, JLPT-graded Japanese learning dataset (kanji, vocabulary, \
                      grammar, kana, radicals, Japanese history, lessons, journeys and \
                      worlds), every entry with its cited sources. Read-only REST and MCP, \
                      prepaid per-call billing in yen points."
            .to_owned(),
        mcp_endpoint: "/mcp".to_owned(),
        openapi: "/api/v1/openapi.json".to_owned(),
        docs_url: format!("{}/docs", settings.base_url),
        endpoints: crate::operations::discovery_endpoints(),
        auth: "Optional for REST: send an API key (svc_ak_…) as `Authorization: Bearer <key>` \
               or `X-API-Key: <key>` for the full dataset; without a key REST answers the \
               evaluation sample (\"sample\": true). MCP requires a Bearer key. Without an \
               account, every operation is also sold per call under /x402/ (see `x402`)."
            .to_owned(),
        pricing: Pricing {
            currency: "JPY".to_owned(),
            note: format!(
                "1 point = 1 JPY, prepaid, debited per successful call. Content reads \
                 (learnable, lesson, journey, worlds, related) {read}, search {search}, a \
                 localized read generated on a cache miss {generation} (once), {read} after. \
                 Keyless sample calls are free. Direct address: {direct}",
                read = settings.prices.read_jpy,
                search = settings.prices.search_jpy,
                generation = settings.prices.localized_generation_jpy,
                direct = settings.direct_url,
            ),
            read_jpy: settings.prices.read_jpy,
            search_jpy: settings.prices.search_jpy,
            localized_generation_jpy: settings.prices.localized_generation_jpy,
        },
        fair_use: FairUse {
            daily_call_cap_per_key: settings.fair_use.daily_calls_per_key_max,
            daily_call_cap_per_account: settings.fair_use.daily_calls_per_account_max,
            note: "Caps reset at 00:00 UTC and are raised per customer on request. Serve your \
                   own users; bulk redistribution and building a competing dataset are \
                   prohibited."
                .to_owned(),
        },
        search_limit_max: SearchLimit::MAX,
        signup_url: settings.signup_url.clone(),
        mode,
        locales: locales.to_vec(),
        x402: settings
            .x402
            .as_ref()
            .map(|x402| x402_terms(x402, settings)),
    }
}

fn x402_terms(x402: &crate::x402::X402Settings, settings: &Settings) -> X402Terms {
    let amount = |jpy: i64| x402.rate.atomic(jpy, x402.asset.decimals).to_string();
    X402Terms {
        prefix: crate::x402::PREFIX.to_owned(),
        mcp_endpoint: format!("{}/mcp", crate::x402::PREFIX),
        scheme: "exact".to_owned(),
        network: x402.network.caip2(),
        network_v1: x402.network.name.to_owned(),
        asset: x402.asset.address.to_checksum(None),
        asset_name: x402.asset.name.clone(),
        asset_version: x402.asset.version.clone(),
        asset_decimals: x402.asset.decimals,
        pay_to: x402.pay_to.to_checksum(None),
        jpy_per_usd: x402.rate.text.clone(),
        rate_at: x402
            .rate
            .at
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        read_amount: amount(settings.prices.read_jpy),
        search_amount: amount(settings.prices.search_jpy),
        localized_generation_amount: amount(settings.prices.localized_generation_jpy),
    }
}

/// The discovery document as JSON text (the `data` of `GET /api/v1`).
pub fn discovery_json(settings: &Settings, locales: &[LocaleSupport], mode: Mode) -> String {
    // Plain strings and integers always serialize.
    serde_json::to_string(&discovery(settings, locales, mode)).unwrap_or_default()
}

/// The locales the configured generators serve, for discovery.
pub fn locales(localizer: &manabi_localize::Localizer) -> Vec<LocaleSupport> {
    localizer
        .locales()
        .into_iter()
        .map(|(locale, kinds)| LocaleSupport {
            locale: locale.to_string(),
            language: locale.english_name().to_owned(),
            generators: kinds
                .into_iter()
                .map(|kind| kind.as_str().to_owned())
                .collect(),
        })
        .collect()
}

pub fn credit_packs(settings: &Settings) -> CreditPacks {
    let packs = settings
        .credit_packs
        .iter()
        .map(|pack| CreditPack {
            id: pack.id.clone(),
            points: pack.points,
            price_jpy: pack.price_jpy,
            bonus: pack.bonus,
            purchase_url: format!("{}?pack={}", settings.top_up_url, pack.id),
        })
        .collect();
    CreditPacks {
        currency: "JPY".to_owned(),
        packs,
    }
}

pub fn credit_packs_json(settings: &Settings) -> String {
    serde_json::to_string(&credit_packs(settings)).unwrap_or_default()
}
