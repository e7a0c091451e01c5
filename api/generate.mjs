// Writes api/openapi.json, the OpenAPI 3.1 description of the interface as Corridor serves it.
// The document is written here as code, because most operations share their error answers and
// most resources their building blocks; the JSON it prints is what the repository keeps, what
// the server embeds and serves at GET /2025-10-13/openapi.json, and what the API suites validate
// every response against. Run `node api/generate.mjs` after changing this file (the openapi_lint
// test fails while the two differ).
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const VERSION = '2025-10-13';
const ref = (name) => ({ $ref: `#/components/schemas/${name}` });
const str = (extra = {}) => ({ type: 'string', ...extra });
const int = (extra = {}) => ({ type: 'integer', ...extra });
const num = (extra = {}) => ({ type: 'number', ...extra });
const bool = (extra = {}) => ({ type: 'boolean', ...extra });
const arr = (items, extra = {}) => ({ type: 'array', items, ...extra });
const obj = (properties, required = [], extra = {}) => ({ type: 'object', properties, required, ...extra });
const en = (values, extra = {}) => ({ type: 'string', enum: values, ...extra });
const id = (type) => str({ pattern: `^${type}:`, description: `${type}:<uuid v7>` });
const timestamp = str({ format: 'date-time' });
const minor = int({ description: 'amount in the smallest unit of the currency' });

// ---------------------------------------------------------------------------------------------
// Error codes by HTTP status (server/api/errors.cpp is the source).
const errorCodes = {
  400: ['INVALID_INPUT', 'INVALID_UMA_ADDRESS', 'INVALID_CURRENCY', 'INVALID_AMOUNT', 'AMOUNT_OUT_OF_RANGE',
    'SAME_CURRENCY', 'CURRENCY_NOT_ENABLED', 'INSUFFICIENT_BALANCE', 'QUOTE_NOT_EXECUTABLE',
    'MISSING_IDEMPOTENCY_KEY', 'MISSING_MANDATORY_USER_INFO', 'WEBHOOK_ENDPOINT_NOT_SET',
    'WEBHOOK_DELIVERY_ERROR', 'INVALID_BANK_ACCOUNT', 'INVALID_RECEIVER', 'SELF_PAYMENT',
    'PARSE_LNURLP_RESPONSE_ERROR', 'PARSE_PAYREQ_RESPONSE_ERROR', 'INVALID_PAYREQ_RESPONSE',
    'INVITATION_ALREADY_CLAIMED', 'INVITATION_CANCELLED', 'INVITATION_EXPIRED'],
  401: ['UNAUTHORIZED'],
  403: ['FORBIDDEN', 'USER_NOT_READY'],
  404: ['NOT_FOUND', 'UNSUPPORTED_API_VERSION', 'USER_NOT_FOUND', 'TOKEN_NOT_FOUND', 'QUOTE_NOT_FOUND',
    'TRANSACTION_NOT_FOUND', 'BULK_UPLOAD_JOB_NOT_FOUND', 'ACCOUNT_NOT_FOUND', 'LINK_TOKEN_NOT_FOUND',
    'INVITATION_NOT_FOUND', 'LOOKUP_REQUEST_NOT_FOUND'],
  405: ['METHOD_NOT_ALLOWED'],
  409: ['CONFLICT', 'UMA_ADDRESS_EXISTS', 'PLATFORM_CUSTOMER_ID_EXISTS', 'UMA_DOMAIN_EXISTS',
    'IDEMPOTENCY_KEY_IN_USE', 'QUOTE_NOT_PENDING', 'QUOTE_EXPIRED', 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL',
    'EXTERNAL_ACCOUNT_EXISTS', 'LINK_TOKEN_ALREADY_USED'],
  410: ['CUSTOMER_DELETED'],
  412: ['UNSUPPORTED_UMA_VERSION'],
  413: ['PAYLOAD_TOO_LARGE'],
  415: ['UNSUPPORTED_MEDIA_TYPE'],
  422: ['IDEMPOTENCY_KEY_MISMATCH'],
  424: ['LNURLP_REQUEST_FAILED', 'COUNTERPARTY_PUBKEY_FETCH_ERROR', 'NO_COMPATIBLE_UMA_VERSION',
    'PAYREQ_REQUEST_FAILED'],
  431: ['HEADER_TOO_LARGE'],
  500: ['INTERNAL_ERROR'],
  501: ['NOT_IMPLEMENTED'],
  503: ['SERVICE_UNAVAILABLE'],
};
const statusText = {
  400: 'The request is invalid; `details.field` names the field when one is at fault',
  401: 'Missing or bad credentials (with a `WWW-Authenticate: Basic` challenge)',
  403: 'The token lacks the permission, a sandbox route with production credentials, or the customer is not KYC-approved',
  404: 'Not found (another tenant\'s ids read as not found too)',
  405: 'The path exists for other methods (see the `Allow` header)',
  409: 'Conflict with the current state',
  410: 'Gone',
  412: 'The receiver\'s UMA provider refused every UMA version Corridor speaks',
  413: 'The body is larger than the configured limit',
  415: 'The body is not JSON',
  422: 'The Idempotency-Key was used with a different request',
  424: 'The receiver\'s UMA provider failed',
  431: 'The request headers are larger than the configured limit',
  500: 'Internal error; nothing internal is named; retry later',
  501: 'Not implemented',
  503: 'The service is busy, shutting down, or a rail is unavailable; retry later',
};

const schemas = {};

schemas.Error = obj({
  status: int({ description: 'the HTTP status, repeated' }),
  code: str({ pattern: '^[A-Z][A-Z0-9_]*$' }),
  message: str(),
  details: obj({ field: str({ description: 'the path of the field at fault, as `source.accountId` or `beneficialOwners[0].address.line1`' }) }, [], { additionalProperties: true }),
}, ['status', 'code', 'message']);
for (const [status, codes] of Object.entries(errorCodes)) {
  schemas[`Error${status}`] = {
    allOf: [ref('Error')],
    properties: { status: { const: Number(status) }, code: en(codes) },
  };
}
// uma/uma_error.cpp is the source of the UMA codes.
schemas.UmaError = obj({
  status: { const: 'ERROR' },
  reason: str(),
  code: en(['INVALID_INPUT', 'INVALID_SIGNATURE', 'INVALID_NONCE', 'INVALID_TIMESTAMP', 'MISSING_REQUIRED_UMA_PARAMETERS',
    'PARSE_LNURLP_REQUEST_ERROR', 'PARSE_LNURLP_RESPONSE_ERROR', 'PARSE_PAYREQ_REQUEST_ERROR', 'PARSE_PAYREQ_RESPONSE_ERROR',
    'PARSE_UTXO_CALLBACK_ERROR', 'PARSE_PUBKEY_RESPONSE_ERROR', 'INVALID_PUBKEY_FORMAT', 'CERT_CHAIN_INVALID',
    'MISSING_MANDATORY_PAYER_DATA', 'INVALID_CURRENCY', 'AMOUNT_OUT_OF_RANGE', 'USER_NOT_FOUND', 'UNSUPPORTED_UMA_VERSION',
    'NO_COMPATIBLE_UMA_VERSION', 'COUNTERPARTY_PUBKEY_FETCH_ERROR', 'LNURLP_REQUEST_FAILED', 'PAYREQ_REQUEST_FAILED',
    'INVALID_PAYREQ_RESPONSE', 'NOT_IMPLEMENTED', 'INTERNAL_ERROR']),
  supportedMajorVersions: arr(int(), { description: '412 UNSUPPORTED_UMA_VERSION: the majors Corridor speaks' }),
  unsupportedVersion: str({ description: '412 UNSUPPORTED_UMA_VERSION: the version asked for' }),
}, ['status', 'reason', 'code'], { description: 'The UMA protocol\'s error shape, answered by the public UMA routes.' });

// ---------------------------------------------------------------------------------------------
// Common shapes
const userInfoFields = ['FULL_NAME', 'BIRTH_DATE', 'NATIONALITY', 'ADDRESS', 'PHONE_NUMBER', 'EMAIL',
  'BUSINESS_NAME', 'TAX_ID', 'COUNTRY_OF_RESIDENCE'];
schemas.UserInfoFieldName = en(userInfoFields);
schemas.Currency = obj({
  code: str({ description: 'ISO 4217 (or BTC and the other codes of the currencies file)' }),
  name: str(), symbol: str(), decimals: int({ minimum: 0 }),
}, ['code'], { description: 'A currency unknown to the currencies file carries its code alone.' });
schemas.CurrencyAmount = obj({ amount: minor, currency: ref('Currency') }, ['amount', 'currency']);
schemas.Address = obj({
  line1: str(), line2: str(), city: str(), state: str(), postalCode: str(),
  country: str({ description: 'ISO 3166-1 alpha-2' }),
});
schemas.CounterpartyField = obj({ name: ref('UserInfoFieldName'), mandatory: bool() }, ['name', 'mandatory']);
const page = (item) => obj({
  data: arr(ref(item)),
  hasMore: bool(),
  nextCursor: str({ description: 'present only when hasMore is true' }),
  totalCount: int({ minimum: 0, description: 'the number of items matching the filter' }),
}, ['data', 'hasMore', 'totalCount']);
const dataOnly = (item) => obj({ data: arr(ref(item)) }, ['data']);

schemas.PaymentInstruction = obj({
  accountOrWalletInfo: obj({
    accountType: str({ description: 'US_ACCOUNT, SPARK_WALLET, LIGHTNING, ... (the funding file and the rails decide)' }),
    reference: str({ description: 'to put in the transfer memo so the deposit matches' }),
  }, ['accountType'], { additionalProperties: true }),
  instructionsNotes: str(),
  isPlatformAccount: bool(),
}, ['accountOrWalletInfo']);
schemas.RateDetails = obj({
  counterpartyMultiplier: num(), counterpartyFixedFee: int(), serviceApiMultiplier: num(),
  serviceApiFixedFee: int(), serviceApiVariableFeeRate: num(), serviceApiVariableFeeAmount: int(),
});

// ---------------------------------------------------------------------------------------------
// Resources
schemas.SupportedCurrency = obj({
  currencyCode: str(), minAmount: int({ minimum: 0 }), maxAmount: int({ minimum: 0 }),
  enabledTransactionTypes: arr(en(['OUTGOING', 'INCOMING'])),
  requiredCounterpartyFields: arr(ref('CounterpartyField')),
  providerRequiredCustomerFields: arr(ref('UserInfoFieldName')),
  providerRequiredCounterpartyCustomerFields: arr(ref('UserInfoFieldName')),
}, ['currencyCode', 'minAmount', 'maxAmount', 'enabledTransactionTypes', 'requiredCounterpartyFields']);
schemas.PlatformConfig = obj({
  id: id('PlatformConfig'), umaDomain: str(), proxyUmaSubdomain: str(),
  webhookEndpoint: str({ format: 'uri', description: 'present once configured' }),
  supportedCurrencies: arr(ref('SupportedCurrency')),
  isRegulatedFinancialInstitution: bool(), createdAt: timestamp, updatedAt: timestamp,
}, ['id', 'umaDomain', 'proxyUmaSubdomain', 'supportedCurrencies', 'isRegulatedFinancialInstitution', 'createdAt', 'updatedAt']);

const kycStatuses = ['APPROVED', 'REJECTED', 'PENDING_REVIEW', 'EXPIRED', 'CANCELED', 'MANUALLY_APPROVED', 'MANUALLY_REJECTED'];
schemas.KycStatus = en(kycStatuses);
schemas.BusinessInfo = obj({ legalName: str(), registrationNumber: str(), taxId: str() });
schemas.BeneficialOwner = obj({
  fullName: str(), individualType: str(), emailAddress: str(), phoneNumber: str(), taxId: str(), title: str(),
  birthDate: str({ format: 'date' }), nationality: str(), address: ref('Address'), percentageOwnership: num(),
});
schemas.Customer = obj({
  id: id('Customer'), platformCustomerId: str(), customerType: en(['INDIVIDUAL', 'BUSINESS']),
  umaAddress: str({ pattern: '^\\$[^@]+@.+$' }), kycStatus: ref('KycStatus'),
  fullName: str(), birthDate: str({ format: 'date' }), nationality: str(), address: ref('Address'),
  businessInfo: ref('BusinessInfo'), beneficialOwners: arr(ref('BeneficialOwner')),
  isDeleted: bool(), createdAt: timestamp, updatedAt: timestamp,
}, ['id', 'platformCustomerId', 'customerType', 'umaAddress', 'kycStatus', 'isDeleted', 'createdAt', 'updatedAt']);

schemas.InternalAccount = obj({
  id: id('InternalAccount'), balance: ref('CurrencyAmount'),
  fundingPaymentInstructions: arr(ref('PaymentInstruction')),
  customerId: str({ description: 'absent when the account is the platform\'s' }),
  createdAt: timestamp, updatedAt: timestamp,
}, ['id', 'balance', 'fundingPaymentInstructions', 'createdAt', 'updatedAt']);

schemas.Beneficiary = obj({
  beneficiaryType: en(['INDIVIDUAL', 'BUSINESS']), fullName: str(), birthDate: str(), nationality: str(),
  legalName: str(), registrationNumber: str(), taxId: str(), email: str(), phoneNumber: str(),
  countryOfResidence: str(), address: ref('Address'),
});
const accountInfoProperties = {
  accountType: str({ description: 'US_ACCOUNT/USD_ACCOUNT, MXN_ACCOUNT, BRL_ACCOUNT, EUR_ACCOUNT, INR_ACCOUNT, NGN_ACCOUNT, CAD_ACCOUNT, GBP_ACCOUNT, PHP_ACCOUNT, SGD_ACCOUNT, SPARK_WALLET, LIGHTNING' }),
  paymentRails: arr(str()),
  accountNumber: str(), routingNumber: str(), accountCategory: str(), bankName: str(), clabeNumber: str(),
  pixKey: str(), pixKeyType: str(), taxId: str(), iban: str(), swiftBic: str(), swiftCode: str(), vpa: str(),
  purposeOfPayment: str(), bankCode: str(), branchCode: str(), sortCode: str(), address: str(),
  assetType: str(), invoice: str(), bolt12: str(), lightningAddress: str(), beneficiary: ref('Beneficiary'),
};
schemas.AccountInfo = obj(accountInfoProperties, ['accountType'], { additionalProperties: true });
schemas.ExternalAccount = obj({
  id: id('ExternalAccount'), status: en(['PENDING', 'ACTIVE', 'UNDER_REVIEW', 'INACTIVE']), currency: str(),
  accountInfo: ref('AccountInfo'), customerId: { type: ['string', 'null'] }, platformAccountId: str(),
  beneficiary: ref('Beneficiary'), defaultUmaDepositAccount: bool(),
  beneficiaryVerificationStatus: en(['MATCHED', 'PARTIAL_MATCH', 'NOT_MATCHED', 'UNSUPPORTED', 'CHECKED_BY_RECEIVING_FI', 'PENDING']),
  beneficiaryVerifiedData: obj({ fullName: str() }),
  createdAt: timestamp, updatedAt: timestamp,
}, ['id', 'status', 'currency', 'accountInfo', 'customerId', 'defaultUmaDepositAccount', 'beneficiaryVerificationStatus', 'createdAt', 'updatedAt']);

schemas.Quote = obj({
  id: id('Quote'), status: en(['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED']),
  createdAt: timestamp, expiresAt: timestamp,
  source: obj({
    sourceType: en(['ACCOUNT', 'REALTIME_FUNDING']), accountId: str(), currency: str(), customerId: str(),
  }, ['sourceType']),
  destination: {
    oneOf: [
      obj({ destinationType: { const: 'ACCOUNT' }, accountId: str() }, ['destinationType', 'accountId']),
      obj({ destinationType: { const: 'UMA_ADDRESS' }, umaAddress: str(), currency: str() }, ['destinationType', 'umaAddress']),
    ],
  },
  sendingCurrency: ref('Currency'), receivingCurrency: ref('Currency'),
  totalSendingAmount: int({ minimum: 0 }), totalReceivingAmount: int({ minimum: 0 }),
  exchangeRate: num({ description: 'sending units per receiving unit, fees excluded' }),
  feesIncluded: int({ minimum: 0 }), transactionId: id('Transaction'),
  rateDetails: ref('RateDetails'), paymentInstructions: arr(ref('PaymentInstruction')),
  description: str(), purposeOfPayment: ref('PurposeOfPayment'),
}, ['id', 'status', 'createdAt', 'expiresAt', 'source', 'destination', 'sendingCurrency', 'receivingCurrency',
  'totalSendingAmount', 'totalReceivingAmount', 'exchangeRate', 'feesIncluded', 'transactionId', 'rateDetails']);
schemas.PurposeOfPayment = en(['GIFT', 'SELF', 'GOODS_OR_SERVICES', 'EDUCATION', 'HEALTH_OR_MEDICAL',
  'REAL_ESTATE_PURCHASE', 'TAX_PAYMENT', 'LOAN_PAYMENT', 'UTILITY_BILL', 'DONATION', 'TRAVEL', 'OTHER']);

const transactionStatuses = ['CREATED', 'PENDING', 'PROCESSING', 'SENT', 'COMPLETED', 'REJECTED', 'FAILED', 'REFUNDED', 'EXPIRED'];
const transactionBase = {
  id: id('Transaction'), status: en(transactionStatuses),
  source: obj({
    sourceType: str({ description: 'ACCOUNT, REALTIME_FUNDING or UMA_ADDRESS' }), currency: str(), accountId: str(),
    umaAddress: str({ description: 'the sender, on the approval question of an incoming UMA payment' }),
  }, ['sourceType', 'currency']),
  destination: obj({ destinationType: str({ description: 'ACCOUNT or UMA_ADDRESS' }), currency: str(), accountId: str(), umaAddress: str() }, ['destinationType', 'currency']),
  createdAt: timestamp, updatedAt: timestamp, customerId: id('Customer'), platformCustomerId: str(),
  settledAt: timestamp, description: str(), quoteId: id('Quote'),
  counterpartyInformation: obj({}, [], { additionalProperties: true, description: 'keyed by UserInfoFieldName; UMA transactions only' }),
  receivedAmount: ref('CurrencyAmount'),
};
const transactionRequired = ['id', 'status', 'type', 'source', 'destination', 'createdAt', 'updatedAt', 'receivedAmount'];
schemas.IncomingTransaction = obj({
  ...transactionBase, type: { const: 'INCOMING' },
  failureReason: en(['LNURLP_FAILED', 'PAY_REQUEST_FAILED', 'PAYMENT_APPROVAL_WEBHOOK_ERROR', 'PAYMENT_APPROVAL_TIMED_OUT',
    'OFFRAMP_FAILED', 'MISSING_MANDATORY_PAYEE_DATA', 'QUOTE_EXPIRED', 'QUOTE_EXECUTION_FAILED']),
  rateDetails: obj({ serviceApiMultiplier: num(), serviceApiFixedFee: int(), serviceApiVariableFeeRate: num(), serviceApiVariableFeeAmount: int() }),
  reconciliationInstructions: obj({ reference: str() }, ['reference'], { description: 'absent in status CREATED' }),
}, transactionRequired);
schemas.OutgoingTransaction = obj({
  ...transactionBase, type: { const: 'OUTGOING' },
  failureReason: en(['QUOTE_EXPIRED', 'QUOTE_EXECUTION_FAILED', 'LIGHTNING_PAYMENT_FAILED', 'FUNDING_AMOUNT_MISMATCH',
    'COUNTERPARTY_POST_TX_FAILED', 'TIMEOUT']),
  sentAmount: ref('CurrencyAmount'), exchangeRate: num(), fees: int({ minimum: 0 }), rateDetails: ref('RateDetails'),
  refund: obj({ reference: str(), initiatedAt: timestamp, settledAt: timestamp, amount: int() }, ['reference', 'initiatedAt']),
  paymentInstructions: arr(ref('PaymentInstruction')),
}, [...transactionRequired, 'sentAmount', 'fees', 'rateDetails']);
schemas.Transaction = { oneOf: [ref('IncomingTransaction'), ref('OutgoingTransaction')] };

schemas.Invitation = obj({
  code: str(), createdAt: timestamp, url: str({ format: 'uri' }), inviterUma: str(),
  status: en(['PENDING', 'CLAIMED', 'EXPIRED', 'CANCELLED']), claimedAt: timestamp, expiresAt: timestamp,
  inviteeUma: str(), firstName: str(), amountToSend: ref('CurrencyAmount'),
}, ['code', 'createdAt', 'url', 'inviterUma', 'status']);
schemas.Permission = en(['VIEW', 'TRANSACT', 'MANAGE']);
schemas.ApiToken = obj({
  id: id('Token'), name: str(), permissions: arr(ref('Permission')), clientId: str(),
  createdAt: timestamp, updatedAt: timestamp,
}, ['id', 'name', 'permissions', 'clientId', 'createdAt', 'updatedAt']);
schemas.ApiTokenWithSecret = {
  allOf: [ref('ApiToken')],
  properties: { clientSecret: str({ description: 'shown once, never again' }) },
  required: ['clientSecret'],
};
schemas.UmaProvider = obj({
  name: str(), domain: str(), supportedRegions: arr(str()), supportedCurrencies: arr(ref('Currency')),
  logoUrl: str(), lei: str(), allowListStatus: bool(),
}, ['name', 'domain', 'supportedRegions', 'supportedCurrencies', 'allowListStatus']);
schemas.BulkUploadAccepted = obj({ jobId: str(), status: { const: 'PENDING' } }, ['jobId', 'status']);
schemas.BulkCustomerImportJob = obj({
  id: str(), status: en(['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED']),
  progress: obj({ total: int(), processed: int(), successful: int(), failed: int() }, ['total', 'processed', 'successful', 'failed']),
  errors: arr(obj({
    code: str(), message: str(),
    details: obj({ field: str(), rowNumber: int() }, [], { additionalProperties: true }),
    correlationId: str(),
  }, ['code', 'message', 'details', 'correlationId'])),
  completedAt: timestamp,
}, ['id', 'status', 'progress']);
schemas.KycLink = obj({
  kycUrl: str({ format: 'uri' }), platformCustomerId: str(),
  customerId: str({ description: 'absent when the link onboards someone who is not a customer yet' }),
}, ['kycUrl', 'platformCustomerId']);
schemas.LinkToken = obj({
  linkToken: str(), expiration: timestamp, callbackUrl: str({ format: 'uri' }), linkUrl: str({ format: 'uri', description: 'the hosted linking page' }),
  requestId: str({ description: 'the request\'s id (X-Request-Id), for support' }),
}, ['linkToken', 'expiration', 'callbackUrl', 'linkUrl']);
schemas.SandboxPublicToken = obj({
  publicToken: str(), bankId: str(), accountId: str(), callbackUrl: str({ format: 'uri' }),
}, ['publicToken', 'bankId', 'accountId', 'callbackUrl']);
schemas.ExchangeRate = obj({
  sourceCurrency: ref('Currency'), destinationCurrency: ref('Currency'), destinationPaymentRail: str(),
  sendingAmount: int(), minSendingAmount: int(), maxSendingAmount: int(), receivingAmount: int(),
  exchangeRate: num(), fees: obj({ fixed: int() }, ['fixed']), updatedAt: timestamp,
}, ['sourceCurrency', 'destinationCurrency', 'sendingAmount', 'receivingAmount', 'exchangeRate', 'fees']);
schemas.ReceiverCurrency = obj({
  currency: ref('Currency'), estimatedExchangeRate: num(), min: int(), max: int(),
}, ['currency', 'min', 'max']);
schemas.UmaReceiverLookup = obj({
  lookupId: id('Lookup'), receiverUmaAddress: str(),
  supportedCurrencies: arr(ref('ReceiverCurrency')), requiredPayerDataFields: arr(ref('CounterpartyField')),
}, ['lookupId', 'receiverUmaAddress', 'supportedCurrencies', 'requiredPayerDataFields']);
schemas.ExternalAccountLookup = obj({
  accountId: id('ExternalAccount'), lookupId: id('Lookup'), supportedCurrencies: arr(ref('ReceiverCurrency')),
}, ['accountId', 'lookupId', 'supportedCurrencies']);
schemas.WebhookTestResult = obj({
  url: str(), response_status: int(), response_body: str(),
}, ['url', 'response_status', 'response_body']);
schemas.WebhookDeliveryAttempt = obj({
  id: str(), webhookId: id('Webhook'), type: str(), attempt: int({ minimum: 1 }), url: str(),
  attemptedAt: timestamp, latencyMs: int({ minimum: 0 }), outcome: en(['SUCCEEDED', 'RETRY_SCHEDULED', 'GAVE_UP']),
  responseExcerpt: str(), responseStatus: { type: ['integer', 'null'], description: 'null when no HTTP answer came' },
  error: str({ description: 'why the attempt failed without an HTTP answer' }), nextAttemptAt: timestamp,
}, ['id', 'webhookId', 'type', 'attempt', 'url', 'attemptedAt', 'latencyMs', 'outcome', 'responseExcerpt', 'responseStatus']);

// ---------------------------------------------------------------------------------------------
// Request bodies. Every field Corridor type-checks is listed with its type: that is what the
// wrong-type suite (tests/api/wrong_types.test.mjs) walks. Unknown fields are ignored.
schemas.PlatformConfigUpdate = obj({
  umaDomain: str(), webhookEndpoint: str({ format: 'uri' }),
  isRegulatedFinancialInstitution: bool({ description: 'set by the operator at platform creation only: present, it is refused (400 naming it)' }),
  proxyUmaSubdomain: str({ description: 'assigned by the service: present, it is refused (400 naming it)' }),
  supportedCurrencies: arr(obj({
    currencyCode: str(), minAmount: int({ minimum: 0 }), maxAmount: int({ minimum: 0 }),
    enabledTransactionTypes: arr(en(['OUTGOING', 'INCOMING'])),
    requiredCounterpartyFields: arr(obj({ name: ref('UserInfoFieldName'), mandatory: bool() }, ['name'])),
  }, ['currencyCode', 'minAmount', 'maxAmount'])),
});
schemas.CustomerCreate = obj({
  platformCustomerId: str(), customerType: en(['INDIVIDUAL', 'BUSINESS']), umaAddress: str(),
  fullName: str(), birthDate: str({ format: 'date' }), nationality: str(), address: ref('Address'),
  businessInfo: ref('BusinessInfo'), beneficialOwners: arr(ref('BeneficialOwner')),
}, ['customerType']);
schemas.CustomerUpdate = obj({ ...schemas.CustomerCreate.properties });
schemas.ExternalAccountCreate = obj({
  currency: str(), customerId: str(), platformAccountId: str(), defaultUmaDepositAccount: bool(),
  accountInfo: obj(accountInfoProperties, ['accountType']),
}, ['currency', 'accountInfo']);
schemas.QuoteCreate = obj({
  source: obj({ sourceType: en(['ACCOUNT', 'REALTIME_FUNDING']), accountId: str(), customerId: str(), currency: str() }),
  destination: obj({ destinationType: en(['ACCOUNT', 'UMA_ADDRESS', 'EXTERNAL_ACCOUNT_DETAILS']), accountId: str(), umaAddress: str(), currency: str() }),
  lockedCurrencySide: en(['SENDING', 'RECEIVING']),
  lockedCurrencyAmount: int({ minimum: 1, maximum: 9000000000000000 }),
  lookupId: str(), immediatelyExecute: bool({ default: false }), description: str(),
  purposeOfPayment: ref('PurposeOfPayment'),
  senderCustomerInfo: obj({}, [], { additionalProperties: true, description: 'UserInfoFieldName to value' }),
}, ['source', 'destination', 'lockedCurrencySide', 'lockedCurrencyAmount']);
const transferSide = obj({ accountId: str(), currency: str() }, ['accountId']);
schemas.Transfer = obj({ source: transferSide, destination: transferSide, amount: int({ minimum: 1 }), description: str() },
  ['source', 'destination', 'amount']);
// The receiver information the approval webhook asked for, keyed by camelCase name or by its
// UserInfoFieldName.
const receiverInfo = {
  fullName: str(), birthDate: str(), nationality: str(), address: ref('Address'), phoneNumber: str(), email: str(),
  businessName: str(), taxId: str(), countryOfResidence: str(),
  FULL_NAME: str(), BIRTH_DATE: str(), NATIONALITY: str(), ADDRESS: ref('Address'), PHONE_NUMBER: str(), EMAIL: str(),
  BUSINESS_NAME: str(), TAX_ID: str(), COUNTRY_OF_RESIDENCE: str(),
};
schemas.ApproveRequest = obj({ receiverCustomerInfo: obj(receiverInfo) });
schemas.RejectRequest = obj({ reason: str() });
schemas.TokenCreate = obj({ name: str(), permissions: arr(ref('Permission')) }, ['name', 'permissions']);
schemas.InvitationCreate = obj({
  inviterUma: str(), firstName: str(), amountToSend: int({ minimum: 1 }), amountToSendCurrency: str(),
  expiresAt: timestamp,
}, ['inviterUma']);
schemas.InvitationClaim = obj({ inviteeUma: str() }, ['inviteeUma']);
schemas.LinkTokenCreate = obj({ customerId: str() }, ['customerId']);
schemas.BankLinkCallback = obj({ publicToken: str(), accountId: str() }, ['publicToken']);
schemas.SandboxPublicTokenCreate = obj({ linkToken: str(), bankId: str(), accountId: str() }, ['linkToken']);
schemas.SandboxSend = obj({ quoteId: str(), currencyCode: str(), currencyAmount: int({ minimum: 1 }) }, ['quoteId', 'currencyCode']);
schemas.SandboxUmaReceive = obj({
  senderUmaAddress: str(), receiverUmaAddress: str(), customerId: str(), receivingCurrencyCode: str(),
  receivingCurrencyAmount: int({ minimum: 1 }),
}, ['senderUmaAddress', 'receivingCurrencyCode', 'receivingCurrencyAmount']);
schemas.SandboxFund = obj({ amount: int({ minimum: 1, maximum: 100000000000 }) }, ['amount']);

// ---------------------------------------------------------------------------------------------
// Webhooks
const envelope = (type, payload, required = []) => ({
  allOf: [ref('WebhookEnvelope')],
  properties: { type: { const: type }, ...payload },
  required,
});
schemas.WebhookEnvelope = obj({
  webhookId: id('Webhook'), type: str(), timestamp: str({ format: 'date-time', description: 'this attempt\'s time' }),
}, ['webhookId', 'type', 'timestamp']);
schemas.IncomingPaymentWebhook = envelope('INCOMING_PAYMENT', {
  transaction: ref('IncomingTransaction'), requestedReceiverCustomerInfoFields: arr(ref('CounterpartyField')),
}, ['transaction']);
schemas.OutgoingPaymentWebhook = envelope('OUTGOING_PAYMENT', { transaction: ref('OutgoingTransaction') }, ['transaction']);
// ACCOUNT_STATUS carries either an internal account's balance change or an external account's
// status change (a bank-linked account becoming ACTIVE, screening outcomes).
schemas.AccountStatusWebhook = {
  allOf: [ref('WebhookEnvelope')],
  properties: { type: { const: 'ACCOUNT_STATUS' } },
  oneOf: [
    obj({
      accountId: id('InternalAccount'), oldBalance: ref('CurrencyAmount'), newBalance: ref('CurrencyAmount'),
      customerId: str(), platformCustomerId: str(),
    }, ['accountId', 'oldBalance', 'newBalance']),
    obj({
      accountId: id('ExternalAccount'), status: en(['PENDING', 'ACTIVE', 'UNDER_REVIEW', 'INACTIVE']), previousStatus: str(),
      account: ref('ExternalAccount'), customerId: str(), platformCustomerId: str(),
    }, ['accountId', 'status', 'account']),
  ],
};
schemas.TestWebhook = envelope('TEST', { test: { const: true } }, ['test']);
schemas.BulkUploadWebhook = envelope('BULK_UPLOAD', { bulkCustomerImportJob: ref('BulkCustomerImportJob') }, ['bulkCustomerImportJob']);
schemas.InvitationClaimedWebhook = envelope('INVITATION_CLAIMED', { invitation: ref('Invitation') }, ['invitation']);
schemas.KycStatusWebhook = envelope('KYC_STATUS', { customerId: str(), platformCustomerId: str(), kycStatus: ref('KycStatus') }, ['customerId', 'kycStatus']);

// ---------------------------------------------------------------------------------------------
// Operations
const json = (schema) => ({ 'application/json': { schema } });
const html = { 'text/html': { schema: str() } };
const errorResponse = (status) => ({ $ref: `#/components/responses/Error${status}` });
const responses = {};
for (const status of Object.keys(errorCodes)) {
  const headers = {};
  if (status === '401') headers['WWW-Authenticate'] = { $ref: '#/components/headers/WWW-Authenticate' };
  if (status === '405') headers.Allow = { $ref: '#/components/headers/Allow' };
  if (status === '503') headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
  // A stored 4xx of an idempotent operation is replayed with the header too (5xx are not stored).
  if (status.startsWith('4')) headers['Idempotent-Replayed'] = { $ref: '#/components/headers/Idempotent-Replayed' };
  responses[`Error${status}`] = {
    description: statusText[status],
    ...(Object.keys(headers).length ? { headers } : {}),
    content: json(ref(`Error${status}`)),
  };
}
// The UMA routes answer protocol errors in the UMA shape; what the transport or the dispatcher
// refuses before a handler runs (limits, faults, a busy server) comes in the service's shape.
responses.UmaError = { description: 'An UMA protocol error', content: json({ anyOf: [ref('UmaError'), ref('Error')] }) };

// Answers any route can give: the transport's limits, a server fault, a busy server.
const transportErrors = ['400', '413', '431', '500', '503'];
const authErrors = ['401', '403'];

const paths = {};
function op(method, path, spec) {
  const {
    summary, tag, permission, sandbox = false, body, bodyRequired = true, ok, okStatus = '200',
    okDescription = 'Success', errors = [], params = [], query = [], idempotent = false,
    isPublic = false, extraResponses = {}, description,
  } = spec;
  const full = path.startsWith('/.') || path.startsWith('/uma/') || path.startsWith('/kyc/') ||
    path.startsWith('/invite/') || path.startsWith('/bank-link/{') || path.startsWith('/healthz') ||
    path.startsWith('/readyz') ? path : `/${VERSION}${path}`;
  const operation = {
    operationId: spec.operationId,
    summary,
    tags: [tag],
    ...(description ? { description } : {}),
  };
  if (isPublic) operation.security = [];
  else operation['x-permission'] = permission;
  if (sandbox) operation['x-sandbox-only'] = true;
  const parameters = [];
  for (const name of params) parameters.push({ name, in: 'path', required: true, schema: str() });
  for (const q of query) parameters.push({ in: 'query', required: false, ...q });
  if (idempotent) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
  if (parameters.length) operation.parameters = parameters;
  if (body) {
    operation.requestBody = { required: bodyRequired, content: typeof body === 'string' ? json(ref(body)) : body };
  }
  const out = {};
  if (ok !== undefined) {
    out[okStatus] = { description: okDescription, ...(ok ? { content: typeof ok === 'string' ? json(ref(ok)) : ok } : {}) };
    if (idempotent) out[okStatus].headers = { 'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' } };
  }
  Object.assign(out, extraResponses);
  // A request that names a deleted customer (its id, one of its accounts) is 410 CUSTOMER_DELETED.
  const namesCustomers = !isPublic && (method !== 'get' || /receiver|kyc-link/.test(path));
  const all = new Set([...transportErrors, ...(isPublic ? [] : authErrors), ...errors, ...(namesCustomers ? ['410'] : []),
    ...(body ? ['415'] : []), ...(idempotent ? ['409', '422'] : [])]);
  for (const status of [...all].sort()) {
    if (out[status]) continue;
    out[status] = errorResponse(status);
  }
  operation.responses = out;
  paths[full] = paths[full] || {};
  paths[full][method] = operation;
}

const pageQuery = [
  { name: 'limit', schema: int({ minimum: 1, maximum: 100, default: 20 }) },
  { name: 'cursor', schema: str(), description: 'nextCursor of the previous page' },
];
const dt = (name, description) => ({ name, schema: timestamp, ...(description ? { description } : {}) });
const q = (name, schema = str(), description) => ({ name, schema, ...(description ? { description } : {}) });

// Platform configuration
op('get', '/config', { operationId: 'getConfig', summary: 'The platform configuration of the token\'s environment', tag: 'Platform', permission: 'VIEW', ok: 'PlatformConfig', errors: ['404'] });
op('patch', '/config', { operationId: 'updateConfig', summary: 'Change the UMA domain, webhook endpoint or supported currencies (only the fields sent)', tag: 'Platform', permission: 'MANAGE', body: 'PlatformConfigUpdate', ok: 'PlatformConfig', errors: ['404', '409'] });

// Tokens
op('post', '/tokens', { operationId: 'createToken', summary: 'Create an API token (the secret is shown once)', tag: 'Tokens', permission: 'MANAGE', body: 'TokenCreate', ok: 'ApiTokenWithSecret', okStatus: '201' });
op('get', '/tokens', { operationId: 'listTokens', summary: 'List tokens', tag: 'Tokens', permission: 'VIEW', ok: json(page('ApiToken')),
  query: [q('name'), dt('createdAfter'), dt('createdBefore'), dt('updatedAfter'), dt('updatedBefore'), ...pageQuery] });
op('get', '/tokens/{tokenId}', { operationId: 'getToken', summary: 'One token', tag: 'Tokens', permission: 'VIEW', params: ['tokenId'], ok: 'ApiToken', errors: ['404'] });
op('delete', '/tokens/{tokenId}', { operationId: 'deleteToken', summary: 'Delete a token; it stops working at once', tag: 'Tokens', permission: 'MANAGE', params: ['tokenId'], ok: null, okStatus: '204', okDescription: 'Deleted, no body', errors: ['404'] });

// Customers
op('post', '/customers', { operationId: 'createCustomer', summary: 'Create a customer (and its internal accounts)', tag: 'Customers', permission: 'MANAGE', body: 'CustomerCreate', ok: 'Customer', okStatus: '201', errors: ['409'] });
op('get', '/customers', { operationId: 'listCustomers', summary: 'List customers', tag: 'Customers', permission: 'VIEW', ok: json(page('Customer')),
  query: [q('platformCustomerId'), q('customerType', en(['INDIVIDUAL', 'BUSINESS'])), dt('createdAfter'), dt('createdBefore'), dt('updatedAfter'), dt('updatedBefore'), q('umaAddress'), q('isIncludingDeleted', bool({ default: false })), ...pageQuery] });
op('get', '/customers/{customerId}', { operationId: 'getCustomer', summary: 'One customer', tag: 'Customers', permission: 'VIEW', params: ['customerId'], ok: 'Customer', errors: ['404'] });
op('patch', '/customers/{customerId}', { operationId: 'updateCustomer', summary: 'Update a customer (only the fields sent)', tag: 'Customers', permission: 'MANAGE', params: ['customerId'], body: 'CustomerUpdate', ok: 'Customer', errors: ['404', '409', '410'] });
op('delete', '/customers/{customerId}', { operationId: 'deleteCustomer', summary: 'Mark a customer deleted', tag: 'Customers', permission: 'MANAGE', params: ['customerId'], ok: 'Customer', okDescription: 'The deleted customer', errors: ['404', '410'] });
op('get', '/customers/kyc-link', { operationId: 'getKycLink', summary: 'A single-use hosted KYC link, for a customer or for someone who is not one yet', tag: 'Customers', permission: 'MANAGE', ok: 'KycLink',
  query: [{ ...q('platformCustomerId'), required: true }, q('redirectUri', str({ format: 'uri' }))], errors: ['404', '409'] });
op('post', '/customers/bulk/csv', { operationId: 'uploadCustomersCsv', summary: 'Import customers from a CSV file (asynchronous)', tag: 'Customers', permission: 'MANAGE',
  body: { 'multipart/form-data': { schema: obj({ file: str({ contentMediaType: 'text/csv' }) }, ['file']) } }, ok: 'BulkUploadAccepted', okStatus: '202' });
op('get', '/customers/bulk/jobs/{jobId}', { operationId: 'getBulkJob', summary: 'A bulk import job', tag: 'Customers', permission: 'VIEW', params: ['jobId'], ok: 'BulkCustomerImportJob', errors: ['404'] });

// Internal accounts
op('get', '/customers/internal-accounts', { operationId: 'listCustomerInternalAccounts', summary: 'Internal accounts of customers', tag: 'Accounts', permission: 'VIEW', ok: json(page('InternalAccount')),
  query: [q('currency'), q('customerId'), ...pageQuery] });
op('get', '/platform/internal-accounts', { operationId: 'listPlatformInternalAccounts', summary: 'The platform\'s own internal accounts (not paged)', tag: 'Accounts', permission: 'VIEW', ok: json(dataOnly('InternalAccount')),
  query: [q('currency')] });

// External accounts
for (const [owner, label] of [['customers', 'Customer'], ['platform', 'Platform']]) {
  op('post', `/${owner}/external-accounts`, { operationId: `create${label}ExternalAccount`, summary: `Register an external account (${owner === 'customers' ? 'of a customer' : 'of the platform'})`, tag: 'External accounts', permission: 'MANAGE', body: 'ExternalAccountCreate', ok: 'ExternalAccount', okStatus: '201', errors: ['404', '409'] });
  op('get', `/${owner}/external-accounts`, { operationId: `list${label}ExternalAccounts`, summary: 'List external accounts', tag: 'External accounts', permission: 'VIEW',
    ok: json(page('ExternalAccount')),
    query: owner === 'customers' ? [q('currency'), q('customerId'), ...pageQuery] : [q('currency'), ...pageQuery] });
  op('get', `/${owner}/external-accounts/{accountId}`, { operationId: `get${label}ExternalAccount`, summary: 'One external account', tag: 'External accounts', permission: 'VIEW', params: ['accountId'], ok: 'ExternalAccount', errors: ['404'] });
}
op('get', '/receiver/external-account/{accountId}', { operationId: 'lookupExternalAccount', summary: 'Look up an external account as a receiver: currency, estimated rate, limits', tag: 'Quotes', permission: 'VIEW', params: ['accountId'],
  query: [q('customerId'), q('senderUmaAddress'), q('sendingCurrency', str({ default: 'USD' }))], ok: 'ExternalAccountLookup', errors: ['404'] });
op('get', '/receiver/uma/{receiverUmaAddress}', { operationId: 'lookupUmaReceiver', summary: 'Look up an UMA address: its currencies, rates and required payer data', tag: 'Quotes', permission: 'VIEW', params: ['receiverUmaAddress'],
  query: [q('customerId'), q('senderUmaAddress')], ok: 'UmaReceiverLookup', errors: ['401', '404', '412', '424'] });

// Bank linking
op('post', '/bank-link/link-tokens', { operationId: 'createLinkToken', summary: 'A link token, the hosted linking page and the callback URL', tag: 'Bank linking', permission: 'MANAGE', body: 'LinkTokenCreate', ok: 'LinkToken', errors: ['404', '410'] });
// The hosted page's own form posts here too: a form post is answered with a page, JSON with JSON.
const jsonOrPage = (status) => ({
  description: `${statusText[status]} (a page when the form posted)`,
  content: { ...json(ref(`Error${status}`)), ...html },
});
op('post', '/bank-link/callback/{linkToken}', { operationId: 'bankLinkCallback', summary: 'Finish a bank link with the public token; the account is PENDING until ready', tag: 'Bank linking', isPublic: true, params: ['linkToken'],
  body: { 'application/json': { schema: ref('BankLinkCallback') }, 'application/x-www-form-urlencoded': { schema: ref('BankLinkCallback') } },
  ok: { ...json(ref('ExternalAccount')), ...html }, okStatus: '202', okDescription: 'The PENDING external account (a page when the form posted)',
  extraResponses: Object.fromEntries(['400', '404', '409', '410'].map((status) => [status, jsonOrPage(status)])) });
op('post', '/sandbox/bank-link/public-token', { operationId: 'sandboxPublicToken', summary: 'Sandbox only: a public token for a link token and a test account, without the hosted page', tag: 'Sandbox', permission: 'MANAGE', sandbox: true, body: 'SandboxPublicTokenCreate', ok: 'SandboxPublicToken', errors: ['404', '409'] });

// Quotes and transactions
op('post', '/quotes', { operationId: 'createQuote', summary: 'Quote a cross-currency transfer (optionally executing it at once)', tag: 'Quotes', permission: 'TRANSACT', idempotent: true, body: 'QuoteCreate', ok: 'Quote', okStatus: '201', errors: ['404', '412', '424', '501'] });
op('get', '/quotes', { operationId: 'listQuotes', summary: 'List quotes', tag: 'Quotes', permission: 'VIEW', ok: json(page('Quote')),
  query: [q('customerId'), q('sendingAccountId'), q('receivingAccountId'), q('sendingUmaAddress'), q('receivingUmaAddress'), q('status', en(['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED'])), dt('createdAfter'), dt('createdBefore'), ...pageQuery] });
op('get', '/quotes/{quoteId}', { operationId: 'getQuote', summary: 'One quote', tag: 'Quotes', permission: 'VIEW', params: ['quoteId'], ok: 'Quote', errors: ['404'] });
op('post', '/quotes/{quoteId}/execute', { operationId: 'executeQuote', summary: 'Execute a quote whose source is an internal account (or has direct pull)', tag: 'Quotes', permission: 'TRANSACT', idempotent: true, params: ['quoteId'], ok: 'Quote', errors: ['404', '409', '424'] });
op('get', '/transactions', { operationId: 'listTransactions', summary: 'List transactions', tag: 'Transactions', permission: 'VIEW', ok: json(page('Transaction')),
  query: [q('customerId'), q('platformCustomerId'), q('senderAccountIdentifier'), q('receiverAccountIdentifier'), q('status', en(transactionStatuses)), q('type', en(['INCOMING', 'OUTGOING'])), q('reference'), dt('startDate'), dt('endDate'), ...pageQuery, q('sortOrder', en(['asc', 'desc'], { default: 'desc' }))] });
op('get', '/transactions/{transactionId}', { operationId: 'getTransaction', summary: 'One transaction', tag: 'Transactions', permission: 'VIEW', params: ['transactionId'], ok: 'Transaction', errors: ['404'] });
op('post', '/transactions/{transactionId}/approve', { operationId: 'approveTransaction', summary: 'Approve an incoming payment that was answered 202', tag: 'Transactions', permission: 'TRANSACT', params: ['transactionId'], body: 'ApproveRequest', bodyRequired: false, ok: 'IncomingTransaction', errors: ['404', '409'] });
op('post', '/transactions/{transactionId}/reject', { operationId: 'rejectTransaction', summary: 'Reject an incoming payment that was answered 202', tag: 'Transactions', permission: 'TRANSACT', params: ['transactionId'], body: 'RejectRequest', bodyRequired: false, ok: 'IncomingTransaction', errors: ['404', '409'] });
op('post', '/transfer-in', { operationId: 'transferIn', summary: 'Pull funds from an external account with direct pull into an internal account (same currency)', tag: 'Transactions', permission: 'TRANSACT', idempotent: true, body: 'Transfer', ok: 'Transaction', okStatus: '201', errors: ['404'] });
op('post', '/transfer-out', { operationId: 'transferOut', summary: 'Send funds from an internal account to an external account (same currency)', tag: 'Transactions', permission: 'TRANSACT', idempotent: true, body: 'Transfer', ok: 'Transaction', okStatus: '201', errors: ['404'] });

// Exchange rates and providers
op('get', '/exchange-rates', { operationId: 'listExchangeRates', summary: 'Rates for the platform\'s corridors, with its fees', tag: 'Quotes', permission: 'VIEW', ok: json(dataOnly('ExchangeRate')),
  query: [q('sourceCurrency'), { name: 'destinationCurrency', schema: arr(str()), style: 'form', explode: true, description: 'repeat for several' }, q('sendingAmount', int({ minimum: 0, default: 10000 }))] });
op('get', '/uma-providers', { operationId: 'listUmaProviders', summary: 'UMA providers of the operator\'s list', tag: 'UMA', permission: 'VIEW', ok: json(page('UmaProvider')),
  query: [q('countryCode'), q('currencyCode'), q('hasBlockedProviders', bool()), ...pageQuery, q('sortOrder', en(['asc', 'desc'], { default: 'desc' }))] });

// Invitations
op('post', '/invitations', { operationId: 'createInvitation', summary: 'Create an UMA invitation', tag: 'Invitations', permission: 'MANAGE', body: 'InvitationCreate', ok: 'Invitation', okStatus: '201', errors: ['404'] });
op('get', '/invitations/{invitationCode}', { operationId: 'getInvitation', summary: 'One invitation', tag: 'Invitations', permission: 'VIEW', params: ['invitationCode'], ok: 'Invitation', errors: ['404'] });
op('post', '/invitations/{invitationCode}/claim', { operationId: 'claimInvitation', summary: 'Claim an invitation for an invitee', tag: 'Invitations', permission: 'MANAGE', params: ['invitationCode'], body: 'InvitationClaim', ok: 'Invitation', errors: ['404'] });
op('post', '/invitations/{invitationCode}/cancel', { operationId: 'cancelInvitation', summary: 'Cancel a pending invitation (its creator only)', tag: 'Invitations', permission: 'MANAGE', params: ['invitationCode'], ok: 'Invitation', errors: ['404'] });

// Webhooks
op('post', '/webhooks/test', { operationId: 'testWebhook', summary: 'Send a TEST event to the configured endpoint now', tag: 'Webhooks', permission: 'MANAGE', ok: 'WebhookTestResult' });
op('get', '/webhooks/deliveries', { operationId: 'listWebhookDeliveries', summary: 'Delivery attempts, newest first', tag: 'Webhooks', permission: 'VIEW', ok: json(page('WebhookDeliveryAttempt')),
  query: [q('webhookId'), q('type'), q('outcome', en(['SUCCEEDED', 'RETRY_SCHEDULED', 'GAVE_UP'])), ...pageQuery] });

// Sandbox
op('post', '/sandbox/send', { operationId: 'sandboxSend', summary: 'Simulate the funds a quote\'s payment instructions ask for', tag: 'Sandbox', permission: 'TRANSACT', sandbox: true, idempotent: true, body: 'SandboxSend', ok: 'OutgoingTransaction', errors: ['404'] });
op('post', '/sandbox/uma/receive', { operationId: 'sandboxUmaReceive', summary: 'Simulate an incoming UMA payment', tag: 'Sandbox', permission: 'TRANSACT', sandbox: true, idempotent: true, body: 'SandboxUmaReceive', ok: 'IncomingTransaction', errors: ['404'] });
op('post', '/sandbox/internal-accounts/{accountId}/fund', { operationId: 'sandboxFund', summary: 'Add funds to an internal account', tag: 'Sandbox', permission: 'TRANSACT', sandbox: true, idempotent: true, params: ['accountId'], body: 'SandboxFund', ok: 'InternalAccount', errors: ['404'] });

// The contract itself
op('get', '/openapi.json', { operationId: 'getOpenApi', summary: 'This document', tag: 'Meta', isPublic: true,
  ok: json({ type: 'object', required: ['openapi', 'paths'] }),
  extraResponses: { 304: { description: 'Not modified (the If-None-Match named the current ETag)' } } });
paths[`/${VERSION}/openapi.json`].get.responses['200'].headers = { ETag: { $ref: '#/components/headers/ETag' } };
paths[`/${VERSION}/openapi.json`].get.parameters = [{ name: 'If-None-Match', in: 'header', required: false, schema: str() }];

// Health (public listener; the admin listener also serves /metrics, which is not part of the API)
op('get', '/healthz', { operationId: 'healthz', summary: 'Liveness', tag: 'Health', isPublic: true, ok: json(obj({ status: { const: 'ok' } }, ['status'])) });
op('get', '/readyz', { operationId: 'readyz', summary: 'Readiness: store reachable, migrations applied', tag: 'Health', isPublic: true,
  ok: json(obj({ status: { const: 'ready' }, schemaVersion: int() }, ['status', 'schemaVersion'])) });

// Hosted pages (HTML, no credentials: the link is the credential)
// A page's refusals are pages (the problem, or the form again); what the transport refuses before
// the page runs (limits) is the service's JSON error.
const pageRefusals = {
  400: 'The form again with the problem', 404: 'Unknown link or code', 409: 'Conflict (the link was used, or someone else got there first)',
  410: 'The link was used or has expired', 413: 'The form is too large', 431: statusText[431],
};
const pageResponses = (extra = {}) => ({
  ...Object.fromEntries(Object.entries(pageRefusals).map(([status, description]) =>
    [status, { description, content: { ...html, ...json(ref('Error')) } }])),
  ...Object.fromEntries(Object.entries(extra).filter(([, response]) => !response.content)),
});
op('get', '/kyc/{token}', { operationId: 'kycPage', summary: 'The hosted KYC form', tag: 'Hosted pages', isPublic: true, params: ['token'], query: [q('type', en(['INDIVIDUAL', 'BUSINESS']))], ok: html,
  extraResponses: pageResponses({ 410: { description: 'The link was used or has expired', content: html } }) });
op('post', '/kyc/{token}', { operationId: 'kycSubmit', summary: 'Submit the hosted KYC form', tag: 'Hosted pages', isPublic: true, params: ['token'],
  body: { 'application/x-www-form-urlencoded': { schema: obj({}, [], { additionalProperties: str() }) } }, ok: html, okDescription: 'Thank-you page, or the form again with the problem',
  extraResponses: pageResponses({
    303: { description: 'Submitted; redirect to the redirectUri', headers: { Location: { schema: str() } } },
    400: { description: 'The form again with the problem', content: html },
    409: { description: 'Someone else created that platformCustomerId first', content: html },
    410: { description: 'The link was used or has expired', content: html },
  }) });
op('get', '/bank-link/{linkToken}', { operationId: 'bankLinkPage', summary: 'The hosted bank-linking page', tag: 'Hosted pages', isPublic: true, params: ['linkToken'], ok: html,
  extraResponses: pageResponses({ 409: { description: 'The link token was used', content: html } }) });
op('post', '/bank-link/{linkToken}', { operationId: 'bankLinkPick', summary: 'Pick an account on the hosted bank-linking page', tag: 'Hosted pages', isPublic: true, params: ['linkToken'],
  body: { 'application/x-www-form-urlencoded': { schema: obj({}, [], { additionalProperties: str() }) } }, ok: html,
  extraResponses: pageResponses({
    303: { description: 'Redirect', headers: { Location: { schema: str() } } },
    400: { description: 'The page again with the problem', content: html },
    409: { description: 'The link token was used', content: html },
  }) });
op('get', '/invite/{invitationCode}', { operationId: 'invitationPage', summary: 'The hosted invitation page', tag: 'Hosted pages', isPublic: true, params: ['invitationCode'], ok: html, extraResponses: pageResponses() });
op('post', '/invite/{invitationCode}', { operationId: 'invitationPageClaim', summary: 'Claim from the hosted invitation page', tag: 'Hosted pages', isPublic: true, params: ['invitationCode'],
  body: { 'application/x-www-form-urlencoded': { schema: obj({ inviteeUma: str() }) } }, ok: html,
  extraResponses: pageResponses({ 400: { description: 'The page again with the problem', content: html } }) });

// UMA protocol routes (public, outside the version segment; UMA error shape)
const umaErrors = Object.fromEntries(['400', '401', '403', '404', '409', '412', '424', '500', '501'].map((s) => [s, { $ref: '#/components/responses/UmaError' }]));
const umaOp = (method, path, spec) => {
  op(method, path, { tag: 'UMA protocol', isPublic: true, ...spec, extraResponses: { ...umaErrors, ...(spec.extraResponses || {}) } });
};
umaOp('get', '/.well-known/lnurlp/{user}', { operationId: 'lnurlp', summary: 'LNURLP / UMA lookup of $user@<umaDomain> (the host names the domain)', params: ['user'],
  query: [q('signature'), q('vaspDomain'), q('nonce'), q('timestamp'), q('umaVersion'), q('isSubjectToTravelRule')],
  ok: json(obj({ callback: str({ format: 'uri' }), minSendable: int(), maxSendable: int(), metadata: str(), tag: { const: 'payRequest' } }, ['callback', 'minSendable', 'maxSendable', 'metadata', 'tag'], { additionalProperties: true })) });
umaOp('get', '/.well-known/lnurlpubkey', { operationId: 'lnurlpubkey', summary: 'The domain\'s UMA signing and encryption keys',
  ok: json(obj({
    signingCertChain: arr(str({ pattern: '^[0-9a-f]+$', description: 'hex DER X.509, leaf first' })),
    encryptionCertChain: arr(str({ pattern: '^[0-9a-f]+$' })),
    signingPubKey: str({ pattern: '^[0-9a-f]+$', description: 'hex, uncompressed secp256k1' }),
    encryptionPubKey: str({ pattern: '^[0-9a-f]+$' }),
    expirationTimestamp: int(),
  }, ['signingCertChain', 'encryptionCertChain', 'signingPubKey', 'encryptionPubKey'], { additionalProperties: true })) });
umaOp('get', '/.well-known/uma-configuration', { operationId: 'umaConfiguration', summary: 'The UMA configuration of the domain',
  ok: json(obj({ name: str(), uma_major_versions: arr(int()) }, ['uma_major_versions'], { additionalProperties: true })) });
const payResponse = json(obj({ pr: str(), routes: arr({}) }, ['pr'], { additionalProperties: true }));
umaOp('post', '/uma/payreq/{customerId}', { operationId: 'umaPayRequest', summary: 'The UMA pay-request callback', params: ['customerId'], body: { 'application/json': { schema: obj({}, [], { additionalProperties: true }) } }, ok: payResponse });
umaOp('get', '/uma/payreq/{customerId}', { operationId: 'lnurlPayRequest', summary: 'The LNURL pay-request callback', params: ['customerId'], query: [q('amount'), q('convert'), q('payerData'), q('payerdata')], ok: payResponse });
umaOp('post', '/uma/post-transaction', { operationId: 'umaPostTransaction', summary: 'UMA post-transaction callbacks: parsed, then 501 for now', body: { 'application/json': { schema: obj({}, [], { additionalProperties: true }) } }, ok: json(obj({}, [], { additionalProperties: true })) });

// ---------------------------------------------------------------------------------------------
const webhookPost = (name, summary) => ({
  post: {
    summary,
    parameters: [{ $ref: '#/components/parameters/ServiceSignature' }],
    requestBody: { required: true, content: json(ref(name)) },
    responses: {
      200: { description: 'Received (any 2xx delivers)' },
      202: { description: 'INCOMING_PAYMENT awaiting approval: the platform decides later through approve or reject' },
      409: { description: 'Already received: retries stop' },
    },
  },
});

const document = {
  openapi: '3.1.0',
  info: {
    title: 'Corridor',
    version: VERSION,
    summary: 'Cross-currency payments for platforms: customers, accounts, quotes, UMA, webhooks.',
    description: 'The interface as Corridor serves it. Routes live under the version segment `/' + VERSION + '`; the UMA protocol routes, the hosted pages and the health checks sit outside it. Errors are `{status, code, message, details}`; a field problem names the field in `details.field`. Unknown JSON fields are ignored; a wrong type, a missing required field or an out-of-range value is 400 `INVALID_INPUT` naming the field. Amounts are integers in the smallest unit of their currency. `x-permission` names the token permission an operation needs; `x-sandbox-only` marks operations that refuse production credentials (403).',
    license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
  },
  jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
  servers: [{ url: '/', description: 'the Corridor instance serving this document' }],
  security: [{ basicAuth: [] }],
  tags: ['Platform', 'Tokens', 'Customers', 'Accounts', 'External accounts', 'Bank linking', 'Quotes', 'Transactions',
    'Invitations', 'Webhooks', 'Sandbox', 'UMA', 'UMA protocol', 'Hosted pages', 'Health', 'Meta'].map((name) => ({ name })),
  paths,
  webhooks: {
    incomingPayment: webhookPost('IncomingPaymentWebhook', 'INCOMING_PAYMENT: an incoming payment changed status, or awaits approval (PENDING, with requestedReceiverCustomerInfoFields)'),
    outgoingPayment: webhookPost('OutgoingPaymentWebhook', 'OUTGOING_PAYMENT: an outgoing payment changed status'),
    accountStatus: webhookPost('AccountStatusWebhook', 'ACCOUNT_STATUS: an internal account\'s balance changed, or an external account\'s status (a bank-linked account became ACTIVE)'),
    test: webhookPost('TestWebhook', 'TEST: sent by POST /webhooks/test; never retried'),
    bulkUpload: webhookPost('BulkUploadWebhook', 'BULK_UPLOAD: a bulk import job completed or failed'),
    invitationClaimed: webhookPost('InvitationClaimedWebhook', 'INVITATION_CLAIMED: an invitation was claimed; send any promised amount now'),
    kycStatus: webhookPost('KycStatusWebhook', 'KYC_STATUS: a customer\'s KYC review reached a final state'),
  },
  components: {
    schemas,
    responses,
    parameters: {
      IdempotencyKey: {
        name: 'Idempotency-Key', in: 'header', required: false,
        description: 'The first 2xx or 4xx response is stored and replayed to a repeat (with Idempotent-Replayed: true); the same key with another request is 422; while the first is in flight 409.',
        schema: str({ minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' }),
      },
      ServiceSignature: {
        name: 'X-Service-Signature', in: 'header', required: true,
        description: '`{"v":"1","s":"<base64>"}`: s is the DER ECDSA P-256 signature (low-s) over the SHA-256 of the exact body bytes; verify with the PEM of `corridor webhook-key show`.',
        schema: str({ contentMediaType: 'application/json' }),
      },
    },
    headers: {
      'Idempotent-Replayed': { description: '`true` on a response replayed for a repeated Idempotency-Key (idempotent operations only)', schema: { const: 'true' } },
      'WWW-Authenticate': { required: true, description: 'the Basic challenge', schema: str({ pattern: '^Basic ' }) },
      Allow: { required: true, description: 'the methods the path has', schema: str() },
      'Retry-After': { required: true, description: 'seconds to wait before retrying', schema: str({ pattern: '^[0-9]+$' }) },
      ETag: { required: true, description: 'strong validator of this document; send it back as If-None-Match', schema: str() },
    },
    securitySchemes: {
      basicAuth: {
        type: 'http', scheme: 'basic',
        description: 'An API token\'s clientId as the user name and its clientSecret as the password. Each token belongs to one platform and one environment (sandbox or production), which the credentials select.',
      },
      webhookSignature: {
        type: 'apiKey', in: 'header', name: 'X-Service-Signature',
        description: 'Not a credential for calling Corridor: the signature Corridor puts on every webhook it sends. `{"v":"1","s":"<base64 DER ECDSA P-256 over SHA-256 of the body>"}`.',
      },
    },
  },
};

const here = dirname(fileURLToPath(import.meta.url));
export const text = JSON.stringify(document, null, 2) + '\n';
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(join(here, 'openapi.json'), text);
}
