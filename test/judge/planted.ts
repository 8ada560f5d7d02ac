/** Planted secrets and PII: none may survive. Shared with the end-to-end test. */
export const PLANTED = {
  email: 'jane.doe+orders@example-mail.co.uk',
  phoneIntl: '+1 415 555 2671',
  phoneUs: '(415) 555-2671',
  phoneE164: '+420777123456',
  cardSpaced: '4111 1111 1111 1111',
  cardDashed: '5500-0000-0000-0004',
  cardPlain: '378282246310005',
  openaiKey: 'sk-proj-Abc123Def456Ghi789Jkl012Mno345',
  anthropicKey: 'sk-ant-api03-ZYXWVUTSRQPONMLKJIHGFEDCBA0123456789',
  bearer: 'Bearer abcDEF123456ghiJKL789mnoPQR',
  awsKey: 'AKIAIOSFODNN7EXAMPLE',
  awsSecret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  jwt: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
  githubToken: 'ghp_16C7e42F292c6912E7710c838347Ae178B4a',
  password: 'hunter2-correct-horse',
  customerId: 'ACME-884211',
};
