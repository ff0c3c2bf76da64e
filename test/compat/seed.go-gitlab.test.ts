import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, runGo, startServe } from './harness';

let served: Served;
beforeAll(async () => {
  served = await startServe();
});
afterAll(async () => served?.stop());

// The seed reference's areas that Debian's go-gitlab 0.73 has services for, through their create,
// get, list, update and delete calls. encoding/json refuses a field of the wrong JSON type (a
// string for an int, a date where it wants a timestamp), which python-gitlab and gitbeaker pass
// through; each call here must decode, and the fields read back must be what was written.
describe('go-gitlab 0.73 over the seed areas', () => {
  it('snippets, uploads, badges, group labels, epics, SAML group links and error tracking', () => {
    const out = runGo(
      served,
      `
	g, _, err := git.Groups.CreateGroup(&gitlab.CreateGroupOptions{Name: gitlab.String("Seed"), Path: gitlab.String("seed")})
	must(err)
	p, _, err := git.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.String("app"), NamespaceID: gitlab.Int(g.ID), InitializeWithReadme: gitlab.Bool(true)})
	must(err)
	r := map[string]any{}

	ps, _, err := git.ProjectSnippets.CreateSnippet(p.ID, &gitlab.CreateProjectSnippetOptions{Title: gitlab.String("ps"), FileName: gitlab.String("a.go"),
		Content: gitlab.String("package a"), Description: gitlab.String("d"), Visibility: gitlab.Visibility(gitlab.PrivateVisibility)})
	must(err)
	ps, _, err = git.ProjectSnippets.UpdateSnippet(p.ID, ps.ID, &gitlab.UpdateProjectSnippetOptions{Title: gitlab.String("ps2")})
	must(err)
	pss, _, err := git.ProjectSnippets.ListSnippets(p.ID, nil)
	must(err)
	psc, _, err := git.ProjectSnippets.SnippetContent(p.ID, ps.ID)
	must(err)
	s, _, err := git.Snippets.CreateSnippet(&gitlab.CreateSnippetOptions{Title: gitlab.String("s"), FileName: gitlab.String("b.rb"),
		Content: gitlab.String("puts 1"), Visibility: gitlab.Visibility(gitlab.PublicVisibility)})
	must(err)
	s, _, err = git.Snippets.GetSnippet(s.ID)
	must(err)
	ss, _, err := git.Snippets.ListSnippets(nil)
	must(err)
	ex, _, err := git.Snippets.ExploreSnippets(nil)
	must(err)
	must2 := func(_ *gitlab.Response, err error) { must(err) }
	must2(git.ProjectSnippets.DeleteSnippet(p.ID, ps.ID))
	must2(git.Snippets.DeleteSnippet(s.ID))
	_, gone, _ := git.Snippets.GetSnippet(s.ID)
	r["snippets"] = []any{ps.Title, ps.FileName, ps.Description, ps.Author.Username, ps.CreatedAt != nil, len(ps.Files), len(pss), string(psc),
		s.Title, s.Author.Email, len(ss), len(ex), gone.StatusCode}

	up, _, err := git.Projects.UploadFile(p.ID, strings.NewReader("hello"), "notes.txt")
	must(err)
	r["upload"] = []any{up.Alt, strings.HasPrefix(up.URL, "/uploads/"), strings.HasSuffix(up.Markdown, "/notes.txt)")}

	b, _, err := git.ProjectBadges.AddProjectBadge(p.ID, &gitlab.AddProjectBadgeOptions{LinkURL: gitlab.String("https://ci/%{project_path}"), ImageURL: gitlab.String("https://ci/%{default_branch}.svg")})
	must(err)
	b, _, err = git.ProjectBadges.EditProjectBadge(p.ID, b.ID, &gitlab.EditProjectBadgeOptions{LinkURL: gitlab.String("https://ci/%{project_id}")})
	must(err)
	bs, _, err := git.ProjectBadges.ListProjectBadges(p.ID, nil)
	must(err)
	pv, _, err := git.ProjectBadges.PreviewProjectBadge(p.ID, &gitlab.ProjectBadgePreviewOptions{LinkURL: gitlab.String("https://x/%{project_path}"), ImageURL: gitlab.String("https://i")})
	must(err)
	must2(git.ProjectBadges.DeleteProjectBadge(p.ID, b.ID))
	r["badges"] = []any{b.RenderedLinkURL == fmt.Sprintf("https://ci/%d", p.ID), b.RenderedImageURL, b.Kind, len(bs), pv.RenderedLinkURL}

	gl, _, err := git.GroupLabels.CreateGroupLabel(g.ID, &gitlab.CreateGroupLabelOptions{Name: gitlab.String("bug"), Color: gitlab.String("#FF0000"), Description: gitlab.String("broken")})
	must(err)
	_, _, err = git.Issues.CreateIssue(p.ID, &gitlab.CreateIssueOptions{Title: gitlab.String("crash"), Labels: &gitlab.Labels{"bug"}})
	must(err)
	gls, _, err := git.GroupLabels.ListGroupLabels(g.ID, &gitlab.ListGroupLabelsOptions{WithCounts: gitlab.Bool(true)})
	must(err)
	gl, _, err = git.GroupLabels.UpdateGroupLabel(g.ID, &gitlab.UpdateGroupLabelOptions{Name: gitlab.String("bug"), NewName: gitlab.String("defect"), Color: gitlab.String("#00FF00")})
	must(err)
	sub, _, err := git.GroupLabels.SubscribeToGroupLabel(g.ID, "defect")
	must(err)
	must2(git.GroupLabels.UnsubscribeFromGroupLabel(g.ID, gl.ID))
	byName, _, err := git.GroupLabels.GetGroupLabel(g.ID, "defect")
	must(err)
	must2(git.GroupLabels.DeleteGroupLabel(g.ID, &gitlab.DeleteGroupLabelOptions{Name: gitlab.String("defect")}))
	r["labels"] = []any{gls[0].Name, gls[0].OpenIssuesCount, gl.Name, gl.Color, sub.Subscribed, byName.Subscribed, byName.Description}

	start := gitlab.ISOTime(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	due := gitlab.ISOTime(time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC))
	ep, _, err := git.Epics.CreateEpic(g.ID, &gitlab.CreateEpicOptions{Title: gitlab.String("Launch"), Description: gitlab.String("d"), Labels: &gitlab.Labels{"x"},
		StartDateIsFixed: gitlab.Bool(true), StartDateFixed: &start, DueDateIsFixed: gitlab.Bool(true), DueDateFixed: &due})
	must(err)
	ep, _, err = git.Epics.UpdateEpic(g.ID, ep.IID, &gitlab.UpdateEpicOptions{Title: gitlab.String("Launch 2"), StateEvent: gitlab.String("close")})
	must(err)
	eps, _, err := git.Epics.ListGroupEpics(g.ID, &gitlab.ListGroupEpicsOptions{State: gitlab.String("closed")})
	must(err)
	is, _, err := git.Issues.CreateIssue(p.ID, &gitlab.CreateIssueOptions{Title: gitlab.String("part")})
	must(err)
	ea, _, err := git.EpicIssues.AssignEpicIssue(g.ID, ep.IID, is.ID)
	must(err)
	eis, _, err := git.EpicIssues.ListEpicIssues(g.ID, ep.IID, nil)
	must(err)
	_, _, err = git.EpicIssues.RemoveEpicIssue(g.ID, ep.IID, ea.ID)
	must(err)
	en, _, err := git.Notes.CreateEpicNote(g.ID, ep.IID, &gitlab.CreateEpicNoteOptions{Body: gitlab.String("noted")})
	must(err)
	got, _, err := git.Epics.GetEpic(g.ID, ep.IID)
	must(err)
	must2(git.Epics.DeleteEpic(g.ID, ep.IID))
	r["epics"] = []any{got.Title, got.State, got.Labels, time.Time(*got.StartDate).Format("2006-01-02"), time.Time(*got.DueDateFixed).Format("2006-01-02"),
		got.StartDateIsFixed, got.ClosedAt != nil, len(eps), ea.Issue.Title, ea.Epic.IID, len(eis), eis[0].EpicIssueID == ea.ID, en.NoteableType}

	sl, _, err := git.Groups.AddGroupSAMLLink(g.ID, &gitlab.AddGroupSAMLLinkOptions{SAMLGroupName: gitlab.String("devs"), AccessLevel: gitlab.AccessLevel(gitlab.DeveloperPermissions)})
	must(err)
	sg, _, err := git.Groups.GetGroupSAMLLink(g.ID, "devs")
	must(err)
	sls, _, err := git.Groups.ListGroupSAMLLinks(g.ID)
	must(err)
	must2(git.Groups.DeleteGroupSAMLLink(g.ID, "devs"))
	r["saml"] = []any{sl.Name, int(sg.AccessLevel), len(sls)}

	// go-gitlab 0.73 has no call for PUT .../error_tracking/settings (the one that creates them).
	req, err := git.NewRequest("PUT", fmt.Sprintf("projects/%d/error_tracking/settings", p.ID), map[string]any{"active": true, "integrated": true}, nil)
	must(err)
	_, err = git.Do(req, nil)
	must(err)
	et, _, err := git.ErrorTracking.EnableDisableErrorTracking(p.ID, &gitlab.EnableDisableErrorTrackingOptions{Active: gitlab.Bool(false)})
	must(err)
	etg, _, err := git.ErrorTracking.GetErrorTrackingSettings(p.ID)
	must(err)
	ck, _, err := git.ErrorTracking.CreateClientKey(p.ID)
	must(err)
	cks, _, err := git.ErrorTracking.ListClientKeys(p.ID, nil)
	must(err)
	must2(git.ErrorTracking.DeleteClientKey(p.ID, ck.ID))
	r["error_tracking"] = []any{et.Active, etg.Active, etg.Integrated, ck.Active, strings.HasPrefix(ck.PublicKey, "glet_"), strings.Contains(ck.SentryDsn, ck.PublicKey), len(cks)}
	return r`,
      ['strings', 'time'],
    );
    expect(out).toEqual({
      snippets: ['ps2', 'a.go', 'd', 'root', true, 1, 1, 'package a', 's', 'admin@example.com', 1, 1, 404],
      upload: ['notes.txt', true, true],
      badges: [true, 'https://ci/main.svg', 'project', 1, 'https://x/seed/app'],
      labels: ['bug', 1, 'defect', '#00FF00', true, false, 'broken'],
      epics: ['Launch 2', 'closed', ['x'], '2026-01-02', '2026-03-04', true, true, 1, 'part', 1, 1, true, 'Epic'],
      saml: ['devs', 30, 1],
      error_tracking: [false, false, true, true, true, true, 1],
    });
  });

  it('access requests, invitations, notification settings and events', () => {
    const out = runGo(
      served,
      `
	g, _, err := git.Groups.CreateGroup(&gitlab.CreateGroupOptions{Name: gitlab.String("Open"), Path: gitlab.String("open"), Visibility: gitlab.Visibility(gitlab.PublicVisibility)})
	must(err)
	p, _, err := git.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.String("site"), NamespaceID: gitlab.Int(g.ID),
		Visibility: gitlab.Visibility(gitlab.PublicVisibility), InitializeWithReadme: gitlab.Bool(true)})
	must(err)
	u, _, err := git.Users.CreateUser(&gitlab.CreateUserOptions{Username: gitlab.String("alice"), Name: gitlab.String("Alice"), Email: gitlab.String("alice@example.com"),
		Password: gitlab.String("Secret-123456"), SkipConfirmation: gitlab.Bool(true)})
	must(err)
	tok, _, err := git.Users.CreatePersonalAccessToken(u.ID, &gitlab.CreatePersonalAccessTokenOptions{Name: gitlab.String("t"), Scopes: &[]string{"api"}})
	must(err)
	alice, err := gitlab.NewClient(tok.Token, gitlab.WithBaseURL(os.Getenv("GL_URL")+"/api/v4"))
	must(err)
	r := map[string]any{}
	must2 := func(_ *gitlab.Response, err error) { must(err) }

	pr, _, err := alice.AccessRequests.RequestProjectAccess(p.ID)
	must(err)
	gr, _, err := alice.AccessRequests.RequestGroupAccess(g.ID)
	must(err)
	pl, _, err := git.AccessRequests.ListProjectAccessRequests(p.ID, nil)
	must(err)
	gll, _, err := git.AccessRequests.ListGroupAccessRequests(g.ID, nil)
	must(err)
	ap, _, err := git.AccessRequests.ApproveProjectAccessRequest(p.ID, u.ID, &gitlab.ApproveAccessRequestOptions{AccessLevel: gitlab.AccessLevel(gitlab.ReporterPermissions)})
	must(err)
	must2(git.AccessRequests.DenyGroupAccessRequest(g.ID, u.ID))
	gl2, _, err := git.AccessRequests.ListGroupAccessRequests(g.ID, nil)
	must(err)
	r["access"] = []any{pr.Username, pr.RequestedAt != nil, gr.Name, len(pl), pl[0].RequestedAt != nil, len(gll), int(ap.AccessLevel), len(gl2)}

	gi, _, err := git.Invites.GroupInvites(g.ID, &gitlab.InvitesOptions{Email: gitlab.String("bob@example.com"), AccessLevel: gitlab.AccessLevel(gitlab.ReporterPermissions)})
	must(err)
	pi, _, err := git.Invites.ProjectInvites(p.ID, &gitlab.InvitesOptions{Email: gitlab.String("carol@example.com,dave@example.com"), AccessLevel: gitlab.AccessLevel(gitlab.DeveloperPermissions)})
	must(err)
	dup, _, err := git.Invites.ProjectInvites(p.ID, &gitlab.InvitesOptions{UserID: u.ID, AccessLevel: gitlab.AccessLevel(gitlab.GuestPermissions)})
	must(err)
	gil, _, err := git.Invites.ListPendingGroupInvitations(g.ID, nil)
	must(err)
	pil, _, err := git.Invites.ListPendingProjectInvitations(p.ID, &gitlab.ListPendingInvitationsOptions{Query: gitlab.String("dave@example.com")})
	must(err)
	r["invites"] = []any{gi.Status, pi.Status, dup.Status, len(dup.Message), gil[0].InviteEmail, int(gil[0].AccessLevel), gil[0].CreatedAt != nil, gil[0].CreatedByName,
		len(pil), pil[0].InviteEmail}

	ns, _, err := git.NotificationSettings.GetGlobalSettings()
	must(err)
	ns, _, err = git.NotificationSettings.UpdateGlobalSettings(&gitlab.NotificationSettingsOptions{Level: gitlab.NotificationLevel(gitlab.CustomNotificationLevel), NewIssue: gitlab.Bool(true)})
	must(err)
	nsg, _, err := git.NotificationSettings.UpdateSettingsForGroup(g.ID, &gitlab.NotificationSettingsOptions{Level: gitlab.NotificationLevel(gitlab.WatchNotificationLevel)})
	must(err)
	nsp, _, err := git.NotificationSettings.UpdateSettingsForProject(p.ID, &gitlab.NotificationSettingsOptions{Level: gitlab.NotificationLevel(gitlab.CustomNotificationLevel), MergeMergeRequest: gitlab.Bool(true)})
	must(err)
	nsg2, _, err := git.NotificationSettings.GetSettingsForGroup(g.ID)
	must(err)
	nsp2, _, err := git.NotificationSettings.GetSettingsForProject(p.ID)
	must(err)
	r["notifications"] = []any{ns.Level.String(), ns.NotificationEmail, ns.Events.NewIssue, ns.Events.NewNote, nsg.Level.String(), nsg2.Level.String(), nsg2.Events == nil,
		nsp.Level.String(), nsp2.Events.MergeMergeRequest, nsp2.Events.NewIssue}

	is, _, err := git.Issues.CreateIssue(p.ID, &gitlab.CreateIssueOptions{Title: gitlab.String("bug")})
	must(err)
	_, _, err = git.Notes.CreateIssueNote(p.ID, is.IID, &gitlab.CreateIssueNoteOptions{Body: gitlab.String("seen")})
	must(err)
	commented := gitlab.CommentedEventType
	mine, _, err := git.Events.ListCurrentUserContributionEvents(&gitlab.ListContributionEventsOptions{Action: &commented})
	must(err)
	proj, _, err := git.Events.ListProjectVisibleEvents(p.ID, nil)
	must(err)
	theirs, _, err := git.Users.ListUserContributionEvents("alice", nil)
	must(err)
	actions := []string{}
	for _, e := range proj {
		actions = append(actions, e.ActionName+" "+e.TargetType)
	}
	r["events"] = []any{len(mine), mine[0].Note.Body, mine[0].Note.NoteableType, mine[0].TargetTitle, mine[0].Author.Username, actions, len(theirs), theirs[0].ActionName}
	return r`,
    );
    expect(out).toEqual({
      access: ['alice', true, 'Alice', 1, true, 1, 20, 0],
      invites: ['success', 'success', 'error', 1, 'bob@example.com', 20, true, 'Administrator', 1, 'dave@example.com'],
      notifications: ['custom', 'admin@example.com', true, false, 'watch', 'watch', true, 'custom', true, false],
      events: [
        1,
        'seen',
        'Issue',
        'bug',
        'root',
        ['commented on Note', 'opened Issue', 'joined ', 'pushed new ', 'created '],
        1,
        'joined',
      ],
    });
  });
});
